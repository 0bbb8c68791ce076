#!/usr/bin/env node
// Example bot: summarises the variables it was given (review-pr and converse in bots.json).
// Exits 0 (succeeded); an `exit_code` variable makes it exit with that code, to try failures
// (75 = failed_resumable, anything else non-zero = failed).
import { readRun, reportUsage } from "./usage.mjs";

const mode = (process.argv.find((a) => a.startsWith("--mode=")) ?? "--mode=review").slice(7);
const run = await readRun();
const vars = run.vars ?? {};
const names = Object.keys(vars).sort();

const lines = [`${mode} bot, run ${run.run_id ?? process.env.BOT_RUN_ID}, attempt ${run.attempt ?? 1}`];
if (run.repo_url) lines.push(`repository ${run.repo_url}${run.repo_ref ? ` at ${run.repo_ref}` : ""}`);
lines.push(`${names.length} variable(s)`);
for (const name of names) {
  const value = vars[name];
  const words = value.trim() ? value.trim().split(/\s+/).length : 0;
  lines.push(`  ${name}: ${value.length} characters, ${words} words`);
}
const out = lines.join("\n");
process.stdout.write(`${out}\n`);

const inputChars = names.reduce((n, k) => n + k.length + vars[k].length, 0);
reportUsage(run, { inputChars, outputChars: out.length });

const code = Number(vars.exit_code ?? 0);
process.exit(Number.isInteger(code) && code >= 0 && code < 256 ? code : 1);
