import type { Command } from "commander";
import { enc } from "../api.js";
import { action, count } from "../context.js";
import { fields, table } from "../output.js";

const SHOWN = [
  "id",
  "team_id",
  "bot_id",
  "status",
  "source",
  "attempt",
  "failure_code",
  "failure_detail",
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
        ctx.out.show(await (await ctx.api()).get(`/api/runs/${enc(run!)}`), (r) => fields(r, SHOWN));
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
