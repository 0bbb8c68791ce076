import type { Command } from "commander";
import { enc } from "../api.js";
import { action } from "../context.js";
import { fields, table } from "../output.js";

export function registerUsage(program: Command): void {
  program
    .command("usage")
    .argument("<org>", "org id")
    .option("--daily", "the month day by day: runs created and spend")
    .option("--month <YYYY-MM>", "with --daily: the month (default: this one)")
    .description("an org's usage this month against its caps, or day by day")
    .action(
      action(async (ctx, org) => {
        const api = await ctx.api();
        if (ctx.opts.daily) {
          const q = ctx.opts.month ? `?${new URLSearchParams({ month: ctx.opts.month })}` : "";
          const body = await api.get(`/api/orgs/${enc(org!)}/usage/daily${q}`);
          ctx.out.show(body, (d) =>
            [
              `Month ${d.month}`,
              table(d.days as any[], [
                { header: "DATE", get: (x) => x.date },
                { header: "RUNS", get: (x) => x.runs },
                { header: "COST USD", get: (x) => x.cost_usd },
              ]),
            ].join("\n"),
          );
          return;
        }
        const body = await api.get(`/api/orgs/${enc(org!)}/usage`);
        ctx.out.show(body, (u) => {
          const scalars = Object.keys(u).filter((k) => typeof u[k] !== "object");
          return `${u.org?.name ?? ""} (${u.org?.id ?? org})\n${fields(u, scalars)}`;
        });
      }),
    );
  program
    .command("ledger")
    .argument("<team>", "team id")
    .option("--month <YYYY-MM>", "the month (default: this one)")
    .option("--repo <owner/repo>", "only runs against this repository")
    .description("the credential usage ledger of a team for a month")
    .action(
      action(async (ctx, team) => {
        const q = new URLSearchParams({ ...(ctx.opts.month && { month: ctx.opts.month }), ...(ctx.opts.repo && { repo: ctx.opts.repo }) });
        const body = await (await ctx.api()).get(`/api/teams/${enc(team!)}/credentials/usage${q.size ? `?${q}` : ""}`);
        ctx.out.show(body, (d) =>
          [
            `Month ${d.month}`,
            table(d.credentials as any[], [
              { header: "FINGERPRINT", get: (c) => c.fingerprint },
              { header: "PROVIDER", get: (c) => c.provider },
              { header: "TIER", get: (c) => c.tier },
              { header: "METERED USD", get: (c) => c.metered_usd },
              { header: "ESTIMATED USD", get: (c) => c.estimated_usd },
              { header: "ATTEMPTS", get: (c) => c.attempts },
              { header: "INPUT TOKENS", get: (c) => c.input_tokens },
              { header: "OUTPUT TOKENS", get: (c) => c.output_tokens },
            ]),
          ].join("\n"),
        );
      }),
    );
}
