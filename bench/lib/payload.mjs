// The forge_b (GitHub) pull_request.opened payload from @octokit/webhooks-examples, serialised
// so that the only varying field, pull_request.head.sha, comes last in the byte stream: the
// body is then PREFIX + <40 hex> + SUFFIX and wrk's Lua can sign it per request cheaply.
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const MARK = "0123456789abcdef0123456789abcdef0123456789abcdef".slice(0, 40);

/** Moves `key` to the end of `obj`'s own keys (JSON key order is insertion order). */
function last(obj, key) {
  const { [key]: value, ...rest } = obj;
  return { ...rest, [key]: value };
}

export function loadPullRequestOpened() {
  const file = require.resolve("@octokit/webhooks-examples/api.github.com/index.json");
  const all = JSON.parse(readFileSync(file, "utf8"));
  const pr = all.find((e) => e.name === "pull_request");
  const example = pr?.examples.find((ex) => ex.action === "opened" && ex.pull_request && !ex.pull_request.draft);
  if (!example) throw new Error("no pull_request.opened example in @octokit/webhooks-examples");
  return example;
}

/** { prefix, suffix, body(sha), author, repo, number } for the reordered payload. */
export function splitPayload(example = loadPullRequestOpened()) {
  const head = last({ ...example.pull_request.head, sha: MARK }, "sha");
  const pullRequest = last({ ...example.pull_request, head }, "head");
  const payload = last({ ...example, pull_request: pullRequest }, "pull_request");
  const text = JSON.stringify(payload);
  const at = text.lastIndexOf(MARK);
  if (at < 0 || text.indexOf(MARK) !== at) throw new Error("head sha marker not unique in payload");
  const prefix = Buffer.from(text.slice(0, at), "utf8");
  const suffix = Buffer.from(text.slice(at + MARK.length), "utf8");
  if (!/^"[}\]]+$/.test(suffix.toString())) throw new Error(`head.sha is not last: suffix ${suffix}`);
  return {
    prefix,
    suffix,
    body: (sha) => Buffer.concat([prefix, Buffer.from(sha), suffix]),
    author: example.pull_request.user.login,
    repo: example.repository.full_name,
    number: example.pull_request.number,
  };
}

export function sign(secret, body) {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
