// Shared by the example bots: the runner's stdin JSON and the usage line protocol.

/** Reads the run description the runner writes on stdin: {run_id, bot, attempt, vars, repo_url, repo_ref, project_path}. */
export async function readRun() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text ? JSON.parse(text) : { vars: {} };
}

/** `owner/repo` from a clone URL, or null. */
export function repoSlug(url) {
  if (!url) return null;
  try {
    const slug = new URL(url).pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
    return slug.includes("/") ? slug : null;
  } catch {
    return null;
  }
}

/**
 * Prints one usage line. These examples call no model, so they report a
 * subscription-equivalent estimate priced like a small model (about 4 characters a token).
 */
export function reportUsage(run, { inputChars, outputChars }) {
  const input_tokens = Math.ceil(inputChars / 4);
  const output_tokens = Math.ceil(outputChars / 4);
  const cost_usd = Number(((input_tokens * 0.25 + output_tokens * 1.25) / 1_000_000).toFixed(6));
  const usage = {
    id: "main",
    cost_usd,
    input_tokens,
    output_tokens,
    aggregate_tokens: 0,
    fingerprint: "example-local",
    provider: "example",
    tier: "platform",
    repo: repoSlug(run.repo_url),
    amount_type: "estimate",
  };
  process.stdout.write(`${JSON.stringify({ usage })}\n`);
}
