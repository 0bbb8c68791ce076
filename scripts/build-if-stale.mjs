#!/usr/bin/env node
// Builds dist/ only when a source is newer than the last build (npm start and npm run runner
// call it): a start from a current build takes no compile. `--force` builds regardless.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = path.join(root, "dist", ".build-stamp");
const INPUTS = ["src", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"];

/** The newest modification time under `p` (a file, or a folder walked without its test files' exemption: any change counts). */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, entry)));
  return max;
}

function builtAt() {
  try {
    return fs.statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

const force = process.argv.includes("--force");
const sources = Math.max(...INPUTS.map((i) => newest(path.join(root, i))));
if (!force && builtAt() >= sources) process.exit(0);

process.stderr.write("building dist/ (sources changed since the last build)\n");
const started = Date.now();
const result = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
fs.writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
// The stamp takes the build's start time, so a source saved during the build still counts as newer.
fs.utimesSync(stamp, started / 1000, started / 1000);
