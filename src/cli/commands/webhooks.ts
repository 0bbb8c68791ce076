import type { Command } from "commander";
import { ApiRefusal, UsageError, enc } from "../api.js";
import { action, seconds } from "../context.js";
import { fields, table } from "../output.js";

const collect = (v: string, all: string[]) => [...all, v];

/** `key=value`, the value read as JSON when it parses (numbers, booleans, lists), else as text. */
function setting(pair: string): [string, unknown] {
  const at = pair.indexOf("=");
  if (at <= 0) throw new UsageError(`--set expects key=value, got ${JSON.stringify(pair)}`);
  const raw = pair.slice(at + 1);
  try {
    return [pair.slice(0, at), JSON.parse(raw)];
  } catch {
    return [pair.slice(0, at), raw];
  }
}

const SHOWN = ["id", "name", "provider", "enabled", "sign_mode", "bot_ids", "token_last4", "delivery_url"];

export function registerWebhooks(program: Command): void {
  const hooks = program.command("webhooks").description("a team's webhooks");
  const path = (team: string, id?: string) => `/api/teams/${enc(team)}/webhooks${id ? `/${enc(id)}` : ""}`;

  hooks
    .command("list")
    .argument("<team>", "team id")
    .description("the team's webhooks and their delivery URLs")
    .action(
      action(async (ctx, team) => {
        const body = await (await ctx.api()).get(path(team!));
        ctx.out.show(body, (d) =>
          table(d.webhooks as any[], [
            { header: "ID", get: (w) => w.id },
            { header: "NAME", get: (w) => w.name },
            { header: "PROVIDER", get: (w) => w.provider },
            { header: "ENABLED", get: (w) => w.enabled },
            { header: "BOTS", get: (w) => (w.bot_ids as string[]).join(",") },
            { header: "DELIVERY URL", get: (w) => w.delivery_url },
          ]),
        );
      }),
    );

  hooks
    .command("create")
    .argument("<team>", "team id")
    .description("create a webhook; its token is printed once")
    .requiredOption("--provider <provider>", "forge_a, forge_b, forge_c, generic (or github, gitlab, gitea…)")
    .option("--name <name>", "a name for people")
    .option("--bot <id>", "a bot it launches (repeatable)", collect, [])
    .option("--set <key=value>", "any other field of the webhook (repeatable)", collect, [])
    .action(
      action(async (ctx, team) => {
        const body: Record<string, unknown> = Object.fromEntries((ctx.opts.set as string[]).map(setting));
        body.provider = ctx.opts.provider;
        if (ctx.opts.name !== undefined) body.name = ctx.opts.name;
        if ((ctx.opts.bot as string[]).length > 0) body.bot_ids = ctx.opts.bot;
        const created = await (await ctx.api()).post(path(team!), body);
        ctx.out.show(created, (d) => `${fields(d.config, SHOWN)}\n\nToken (shown once, paste it into the forge): ${d.token}`);
      }),
    );

  hooks
    .command("rotate")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .description("replace the webhook's token; the new one is printed once")
    .option("--overlap <seconds>", "keep accepting the old token this long (0-86400), while the forge's secret field is updated")
    .action(
      action(async (ctx, team, id) => {
        const body = ctx.opts.overlap === undefined ? {} : { overlap_seconds: seconds("--overlap", ctx.opts.overlap) };
        const rotated = await (await ctx.api()).post(`${path(team!, id)}/rotate`, body);
        ctx.out.show(rotated, (d) => {
          const until = d.config.previous_token_valid_until;
          return `New token (shown once): ${d.token}${until ? `\nThe old token is accepted until ${until}.` : ""}`;
        });
      }),
    );

  hooks
    .command("ping")
    .argument("<team>", "team id")
    .argument("<webhook>", "webhook id")
    .option("--token <token>", "a token-mode webhook's token (the service keeps only its hash)")
    .description(
      "send a signed test delivery (the forge's ping or test push) over the network to the webhook's delivery URL, as a forge would, and show what came back (team admin)",
    )
    .action(
      action(async (ctx, team, id) => {
        const body = ctx.opts.token ? { token: ctx.opts.token } : {};
        const done = await (await ctx.api()).post(`${path(team!, id)}/ping`, body);
        ctx.out.show(done, (d) => {
          const answered = d.answer?.body ?? {};
          const shown = fields(
            {
              ...d,
              status: d.answer?.status ?? null,
              outcome: d.unreachable ? `unreachable (${d.unreachable.cause})` : (answered.status ?? answered.error ?? null),
              reason: d.unreachable?.message ?? answered.reason ?? answered.detail ?? answered.message ?? d.answer?.text ?? null,
            },
            ["event", "url", "reached", "status", "outcome", "reason", "delivery_id"],
          );
          return d.hint ? `${shown}\n\nHint: ${d.hint}` : shown;
        });
        // Printed, then exit 1: the test delivery did not land (unreachable, a wrong token, a bad signature, a disabled webhook, another server).
        if (!done.reached) {
          const why = done.unreachable
            ? `unreachable (${done.unreachable.cause})`
            : String(done.answer?.body?.error ?? done.answer?.body?.status ?? done.answer?.status);
          throw new ApiRefusal(done.answer?.status ?? 0, why, "the test delivery did not land");
        }
      }),
    );

  for (const [verb, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    hooks
      .command(verb)
      .argument("<team>", "team id")
      .argument("<webhook>", "webhook id")
      .description(`${verb} the webhook (a disabled one answers deliveries with 410)`)
      .action(
        action(async (ctx, team, id) => {
          const updated = await (await ctx.api()).patch(path(team!, id), { enabled });
          ctx.out.show(updated, (d) => fields(d, ["id", "name", "enabled"]));
        }),
      );
  }
}
