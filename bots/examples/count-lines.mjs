#!/usr/bin/env node
// Example bot (improve in bots.json): counts the lines of the files named in the `files`
// variable (comma-separated, relative to the service's checkout), read-only.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readRun, reportUsage } from "./usage.mjs";

const run = await readRun();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const files = (run.vars?.files ?? "README.md")
  .split(",")
  .map((f) => f.trim())
  .filter(Boolean);

let total = 0;
let read = 0;
const lines = [];
for (const file of files) {
  const full = path.resolve(root, file);
  // Stay inside the checkout: a variable must not point the bot at the rest of the disk.
  if (!full.startsWith(root + path.sep)) {
    lines.push(`${file}: outside the checkout, skipped`);
    continue;
  }
  try {
    const text = fs.readFileSync(full, "utf8");
    const n = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    total += n;
    read += text.length;
    lines.push(`${file}: ${n} lines`);
  } catch (err) {
    lines.push(`${file}: ${err.code ?? "unreadable"}`);
  }
}
lines.push(`total: ${total} lines in ${files.length} file(s)`);
const out = lines.join("\n");
process.stdout.write(`${out}\n`);
reportUsage(run, { inputChars: read, outputChars: out.length });
