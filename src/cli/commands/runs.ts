import { printable } from "../../core/names.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import { type Api, ApiRefusal, enc } from "../api.js";
import { action, type Context, count } from "../context.js";
import { fields, table } from "../output.js";

/** One read of an attempt's log; undefined while a followed attempt has none yet (queued: no runner has claimed it). */
async function readLog(api: Api, path: string, follow: boolean): Promise<{ text: string; headers: Headers } | undefined> {
  try {
    return await api.text(path);
  } catch (err) {
    if (follow && err instanceof ApiRefusal && err.status === 404 && err.detail === "attempt not found") return undefined;
    throw err;
  }
}

/** Prints the attempt's log from its start; with `follow`, reads on until the attempt ends. */
async function printAttemptLog(ctx: Context, api: Api, path: string, attempt: number, follow: boolean, intervalMs: number): Promise<void> {
  let offset = 0;
  for (;;) {
    const read = await readLog(api, `${path}?offset=${offset}`, follow);
    if (!read) {
      await sleep(intervalMs);
      continue;
    }
    const next = Number(read.headers.get("x-log-next-offset") ?? offset);
    const complete = read.headers.get("x-log-complete") === "true";
    if (read.text) printLog(ctx, { attempt, offset, next_offset: next, complete, text: read.text });
    const moved = next > offset;
    offset = next;
    if (complete || (!follow && !moved)) return;
    if (!moved) await sleep(intervalMs);
  }
}

function printLog(ctx: Context, piece: { attempt: number; offset: number; next_offset: number; complete: boolean; text: string }): void {
  if (ctx.out.json) ctx.out.line(piece, "");
  else process.stdout.write(printable(piece.text, true));
}

/** A run for people: its fields, its usage, and a table of its attempts with the keys each was handed. */
function showRun(r: any): string {
  const u = r.usage ?? {};
  const usage = `Usage: $${u.cost_usd ?? 0}, ${u.input_tokens ?? 0} input and ${u.output_tokens ?? 0} output tokens (${u.reports ?? 0} reports)`;
  const attempts = (r.attempts ?? []) as any[];
  const handed = (a: any) => (a.credentials?.keys ?? []).map((k: any) => `${k.provider} …${k.last4 ?? ""} (${k.source})`).join(", ");
  return [
    fields(r, SHOWN),
    "",
    usage,
    "",
    attempts.length === 0
      ? "No attempts yet."
      : table(attempts, [
          { header: "ATTEMPT", get: (a) => a.number },
          { header: "STATUS", get: (a) => a.status },
          { header: "FAILURE", get: (a) => a.failure_code },
          { header: "STARTED", get: (a) => a.started_at },
          { header: "FINISHED", get: (a) => a.finished_at },
          { header: "KEYS", get: handed },
        ]),
  ].join("\n");
}

const SHOWN = [
  "id",
  "team_id",
  "bot_id",
  "status",
  "source",
  "attempt",
  "failure_code",
  "failure_detail",
  "summary",
  "question",
  "waiting_for_answer",
  "retry_at",
  "created_at",
  "started_at",
  "finished_at",
];

export function registerRuns(program: Command): void {
  const runs = program.command("runs").description("bot runs");
  runs
    .command("list")
    .argument("<team>", "team id")
    .option("--status <status>", "only runs in this status")
    .option("--limit <n>", "how many of the latest", "50")
    .description("a team's runs, newest first")
    .action(
      action(async (ctx, team) => {
        const q = new URLSearchParams({ limit: String(count("--limit", ctx.opts.limit, 50)), ...(ctx.opts.status && { status: ctx.opts.status }) });
        const body = await (await ctx.api()).get(`/api/teams/${enc(team!)}/runs?${q}`);
        ctx.out.show(body, (d) =>
          table(d.runs as any[], [
            { header: "ID", get: (r) => r.id },
            { header: "STATUS", get: (r) => r.status },
            { header: "BOT", get: (r) => r.bot_id },
            { header: "SOURCE", get: (r) => r.source },
            { header: "CREATED", get: (r) => r.created_at },
          ]),
        );
      }),
    );
  runs
    .command("show")
    .argument("<run>", "run id")
    .description("one run")
    .action(
      action(async (ctx, run) => {
        ctx.out.show(await (await ctx.api()).get(`/api/runs/${enc(run!)}`), showRun);
      }),
    );
  runs
    .command("logs")
    .argument("<run>", "run id")
    .option("--attempt <n>", "which attempt (default: the run's latest)")
    .option("--follow", "keep reading while the attempt runs, until it ends (Ctrl-C stops)")
    .option("--interval <seconds>", "seconds between reads with --follow", "1")
    .description("what the run's bot printed (stdout and stderr, credentials masked)")
    .action(
      action(async (ctx, run) => {
        const api = await ctx.api();
        const shown = await api.get(`/api/runs/${enc(run!)}`);
        const attempt = ctx.opts.attempt === undefined ? (shown.attempts.at(-1)?.number ?? shown.attempt) : count("--attempt", ctx.opts.attempt, 1);
        const intervalMs = count("--interval", ctx.opts.interval, 1) * 1000;
        await printAttemptLog(ctx, api, `/api/runs/${enc(run!)}/attempts/${attempt}/log`, attempt, ctx.opts.follow === true, intervalMs);
      }),
    );
  runs
    .command("answer")
    .argument("<run>", "run id")
    .argument("<answer>", "the answer (one of the question's choices, when it has some)")
    .description("answer the question a run waits on: the run resumes and its next attempt gets the answer")
    .action(
      action(async (ctx, run, answer) => {
        ctx.out.show(await (await ctx.api()).post(`/api/runs/${enc(run!)}/answer`, { answer }), (r) => fields(r, ["id", "status", "attempt", "answer"]));
      }),
    );
  for (const [verb, what] of [
    ["cancel", "stop a queued or running run"],
    ["resume", "launch a failed_resumable run again, through the launch gate"],
  ] as const) {
    runs
      .command(verb)
      .argument("<run>", "run id")
      .description(what)
      .action(
        action(async (ctx, run) => {
          ctx.out.show(await (await ctx.api()).post(`/api/runs/${enc(run!)}/${verb}`), (r) => fields(r, ["id", "status", "attempt", "cancel_requested"]));
        }),
      );
  }
}
