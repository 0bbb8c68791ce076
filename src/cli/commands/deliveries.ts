import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import { enc } from "../api.js";
import { action, count } from "../context.js";
import { cell, table, type Column } from "../output.js";

type Delivery = Record<string, any>;

const COLUMNS: Column<Delivery>[] = [
  { header: "CREATED", get: (d) => d.created_at },
  { header: "ID", get: (d) => d.id },
  { header: "STATUS", get: (d) => d.status },
  { header: "EVENT", get: (d) => [d.event_kind, d.event_action].filter(Boolean).join(".") },
  { header: "RUN", get: (d) => d.run_id },
  { header: "REASON", get: (d) => d.reason ?? d.denial_reason },
];

export function registerDeliveries(program: Command): void {
  program
    .command("deliveries")
    .description("a webhook's delivery log")
    .command("list")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .option("--limit <n>", "how many of the latest", "50")
    .option("--follow", "keep polling and print new deliveries as they arrive (Ctrl-C stops)")
    .option("--interval <seconds>", "seconds between polls with --follow", "2")
    .description("the latest deliveries, newest first; --follow prints new ones oldest first")
    .action(
      action(async (ctx, team, webhook) => {
        const api = await ctx.api();
        const limit = count("--limit", ctx.opts.limit, 50);
        const url = `/api/teams/${enc(team!)}/webhooks/${enc(webhook!)}/deliveries?limit=${limit}`;
        const first: Delivery[] = (await api.get(url)).deliveries;
        if (!ctx.opts.follow) {
          ctx.out.show({ deliveries: first }, (d) => table(d.deliveries, COLUMNS));
          return;
        }
        const intervalMs = count("--interval", ctx.opts.interval, 2) * 1000;
        const seen = new Set<string>();
        const print = (batch: Delivery[]) => {
          for (const d of batch.filter((x) => !seen.has(x.id)).reverse()) {
            seen.add(d.id);
            ctx.out.line(d, COLUMNS.map((c) => cell(c.get(d))).join("  "));
          }
        };
        if (!ctx.out.json) ctx.out.line(null, COLUMNS.map((c) => c.header).join("  "));
        print(first);
        for (;;) {
          await sleep(intervalMs);
          print((await api.get(url)).deliveries);
        }
      }),
    );
}
