import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../api.js";
import { action } from "../context.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** `--data` as JSON: inline, `@file`, or `@-` for standard input. */
function dataOf(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  const text = raw === "@-" ? readFileSync(0, "utf8") : raw.startsWith("@") ? readFileSync(raw.slice(1), "utf8") : raw;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError("--data must be JSON (inline, @file or @- for standard input)");
  }
}

/** `remote api METHOD PATH [--data JSON]`: any route, as `gh api` does; the answer is printed as sent. */
export function registerRawApi(program: Command): void {
  program
    .command("api")
    .argument("<method>", METHODS.join(", "))
    .argument("<path>", "the route, e.g. /api/users/me (a query string may follow)")
    .option("--data <json>", "the JSON body: inline, @file, or @- for standard input")
    .description("call any route of the API with the saved sign-in and print its answer")
    .action(
      action(async (ctx, method, path) => {
        const verb = method!.toUpperCase();
        if (!METHODS.includes(verb)) throw new UsageError(`method must be one of ${METHODS.join(", ")}`);
        if (!path!.startsWith("/")) throw new UsageError("path must start with /");
        const { text } = await (await ctx.api()).raw(verb, path!, dataOf(ctx.opts.data));
        if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
      }),
    );
}
