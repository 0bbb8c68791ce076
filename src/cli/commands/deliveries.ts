import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import { enc } from "../api.js";
import { action, count } from "../context.js";
import { cell, fields, table, type Column } from "../output.js";

type Delivery = Record<string, any>;

const COLUMNS: Column<Delivery>[] = [
  { header: "CREATED", get: (d) => d.created_at },
  { header: "ID", get: (d) => d.id },
  { header: "STATUS", get: (d) => d.status },
  { header: "EVENT", get: (d) => [d.event_kind, d.event_action].filter(Boolean).join(".") },
  { header: "RUN", get: (d) => d.run_id },
  { header: "REASON", get: (d) => d.reason ?? d.denial_reason },
];

const SHOWN = [
  "id",
  "status",
  "created_at",
  "event",
  "project_path",
  "subject_id",
  "bot_id",
  "run_id",
  "reason",
  "denial_reason",
  "refusal_code",
  "forge_delivery_id",
  "idempotency_key",
  "payload_sha256",
  "source_ip",
  "decided_by",
];

/** Pages a follow reads at once before it waits again. */
const FOLLOW_PAGE = 100;

/**
 * Polls for ever. The cursor is the newest delivery printed: each poll reads the ones after it,
 * a page at a time, so none is missed.
 */
async function follow(get: (query: string) => Promise<any>, from: string | null, intervalMs: number, print: (batch: Delivery[]) => void): Promise<never> {
  let after = from;
  for (;;) {
    const page = await get(after ? `&after=${enc(after)}` : "");
    print(page.deliveries);
    after = page.after ?? after;
    if (!page.has_more || !after) await sleep(intervalMs);
  }
}

export function registerDeliveries(program: Command): void {
  const deliveries = program.command("deliveries").description("a webhook's delivery log");
  deliveries
    .command("list")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .option("--limit <n>", "how many of the latest", "50")
    .option("--before <delivery>", "the deliveries older than this one (a page's last id)")
    .option("--status <status>", "only deliveries of this status")
    .option("--follow", "keep polling and print new deliveries as they arrive (Ctrl-C stops)")
    .option("--interval <seconds>", "seconds between polls with --follow", "2")
    .description("the latest deliveries, newest first; --follow prints new ones oldest first")
    .action(
      action(async (ctx, team, webhook) => {
        const api = await ctx.api();
        const limit = count("--limit", ctx.opts.limit, 50);
        const base = `/api/teams/${enc(team!)}/webhooks/${enc(webhook!)}/deliveries`;
        const filter = ctx.opts.status ? `&status=${enc(ctx.opts.status)}` : "";
        const before = ctx.opts.before ? `&before=${enc(ctx.opts.before)}` : "";
        const first = await api.get(`${base}?limit=${limit}${filter}${before}`);
        if (!ctx.opts.follow) {
          ctx.out.show(first, (d) => table(d.deliveries, COLUMNS) + (d.has_more ? `\nolder: --before ${d.before}` : ""));
          return;
        }
        const intervalMs = count("--interval", ctx.opts.interval, 2) * 1000;
        const print = (batch: Delivery[]) => {
          for (const d of [...batch].reverse()) ctx.out.line(d, COLUMNS.map((c) => cell(c.get(d))).join("  "));
        };
        if (!ctx.out.json) ctx.out.line(null, COLUMNS.map((c) => c.header).join("  "));
        print(first.deliveries);
        await follow((query) => api.get(`${base}?limit=${FOLLOW_PAGE}${filter}${query}`), first.after, intervalMs, print);
      }),
    );
  deliveries
    .command("show")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .argument("<delivery>", "delivery id")
    .description("one delivery: its record, the steps it passed and the one that decided it")
    .action(
      action(async (ctx, team, webhook, delivery) => {
        const got = await (await ctx.api()).get(`/api/teams/${enc(team!)}/webhooks/${enc(webhook!)}/deliveries/${enc(delivery!)}`);
        ctx.out.show(got, (g) => {
          const d = { ...g.delivery, event: [g.delivery.event_kind, g.delivery.event_action].filter(Boolean).join("."), decided_by: g.trace.decided_by };
          const steps = table(g.trace.steps as Delivery[], [
            { header: "STEP", get: (t) => t.step },
            { header: "RESULT", get: (t) => t.result },
            { header: "DETAIL", get: (t) => t.detail },
          ]);
          return `${fields(d, SHOWN)}\n\n${steps}`;
        });
      }),
    );
  deliveries
    .command("redeliver")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .argument("<delivery>", "delivery id")
    .option("--fresh-key", "launch under a fresh idempotency key, even if this event launched already")
    .description("send a delivery's kept request again through the whole pipeline (team admin)")
    .action(
      action(async (ctx, team, webhook, delivery) => {
        const url = `/api/teams/${enc(team!)}/webhooks/${enc(webhook!)}/deliveries/${enc(delivery!)}/redeliver`;
        const done = await (await ctx.api()).post(url, { fresh_key: ctx.opts.freshKey === true });
        ctx.out.show(done, (d) =>
          fields(
            {
              ...d,
              delivery_ids: d.delivery_ids,
              answer_status: d.answer.status,
              outcome: d.answer.body.status ?? d.answer.body.error,
              reason: d.answer.body.reason ?? d.answer.body.detail ?? null,
            },
            ["redelivery_of", "delivery_ids", "proof", "fresh_key", "answer_status", "outcome", "reason"],
          ),
        );
      }),
    );
}
