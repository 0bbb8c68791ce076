import { type Command, Option } from "commander";
import { ApiRefusal, enc } from "../api.js";
import { action, seconds } from "../context.js";
import { fields, table } from "../output.js";

type Report = Record<string, any>;

/** A health report for people: its facts, then one line per problem. */
function reportText(r: Report): string {
  const hook = r.hook ? `${r.hook.id} ${r.hook.url} (${r.hook.active ? "active" : "not active"})` : "-";
  const deliveries = r.deliveries ? `${r.deliveries.failed} of the latest ${r.deliveries.checked} failed` : null;
  const facts = fields({ ...r, forge_hook: hook, forge_deliveries: deliveries, last_delivery_at: r.received.last_delivery_at }, [
    "repo",
    "status",
    "hook_id",
    "hook_url",
    "forge_hook",
    "forge_deliveries",
    "last_delivery_at",
    "checked_at",
  ]);
  if (r.problems.length === 0) return facts;
  return `${facts}\n\n${table(r.problems as Report[], [
    { header: "PROBLEM", get: (p) => p.code },
    { header: "DETAIL", get: (p) => p.detail },
  ])}`;
}

const GATE_SHOWN = ["id", "repo", "gate_context", "auto_fix_on_gate_failure", "review_after_gate"];
const onOff = (flag: string, what: string) => new Option(`${flag} <on|off>`, what).choices(["on", "off"]);

export function registerRepoBots(program: Command): void {
  const bots = program.command("repo-bots").description("a team's provisioned repositories and their hooks on the forge");
  const path = (team: string, id?: string) => `/api/teams/${enc(team)}/forge/repo-bots${id ? `/${enc(id)}` : ""}`;

  bots
    .command("list")
    .argument("<team>", "team id")
    .description("the team's provisioned repositories")
    .action(
      action(async (ctx, team) => {
        const body = await (await ctx.api()).get(path(team!));
        ctx.out.show(body, (d) =>
          table(d.repo_bots as Report[], [
            { header: "ID", get: (b) => b.id },
            { header: "REPO", get: (b) => b.repo },
            { header: "WEBHOOK", get: (b) => b.webhook_id },
            { header: "HOOK", get: (b) => b.hook_id },
            { header: "HOOK URL", get: (b) => b.hook_url },
          ]),
        );
      }),
    );

  bots
    .command("health")
    .argument("<team>", "team id")
    .argument("<repo-bot>", "repo bot id")
    .description("the repository's hook read back from the forge: healthy, degraded or broken, and why")
    .action(
      action(async (ctx, team, id) => {
        ctx.out.show(await (await ctx.api()).get(`${path(team!, id)}/health`), reportText);
      }),
    );

  bots
    .command("rotate")
    .argument("<team>", "team id")
    .argument("<repo-bot>", "repo bot id")
    .description("write a fresh token to the repository's hook; the old one is accepted for the overlap (the service's default unless given)")
    .option("--overlap <seconds>", "keep accepting the old token this long (0-86400; 0 ends it at once, for a leaked token)")
    .action(
      action(async (ctx, team, id) => {
        const body = ctx.opts.overlap === undefined ? {} : { overlap_seconds: seconds("--overlap", ctx.opts.overlap) };
        ctx.out.show(await (await ctx.api()).post(`${path(team!, id)}/rotate`, body), (d) => {
          const until = d.webhook?.previous_token_valid_until;
          return `Hook ${d.hook_id} of ${d.repo} has a fresh token.${until ? ` The old one is accepted until ${until}.` : " The old one is refused."}`;
        });
      }),
    );

  bots
    .command("repair")
    .argument("<team>", "team id")
    .argument("<repo-bot>", "repo bot id")
    .description("write the hook again with a fresh token (made again, enabled, pointed back), then show its health")
    .action(
      action(async (ctx, team, id) => {
        ctx.out.show(await (await ctx.api()).post(`${path(team!, id)}/repair`), reportText);
      }),
    );

  bots
    .command("gate")
    .argument("<team>", "team id")
    .argument("<repo-bot>", "repo bot id")
    .description(
      "show the repository's CI gate settings, or set them (team admin) by provisioning the repository again: a hook whose address moved is written again",
    )
    .option("--context <name>", "the gate: a check run or commit status context (GitHub), a pipeline or status (GitLab), a commit status (Forgejo)")
    .addOption(onOff("--review-after-gate", "on: the automatic review waits for the gate to pass on the head instead of launching on open and push"))
    .addOption(onOff("--auto-fix", "on: the gate failing on the head launches the branch-improvement bot (at most 3 in a row; needs improve in bot_ids)"))
    .action(
      action(async (ctx, team, id) => {
        const api = await ctx.api();
        const rb = ((await api.get(path(team!))).repo_bots as Report[]).find((b) => b.id === id);
        if (!rb) throw new ApiRefusal(404, "not_found", "repo bot not found");
        const { context, reviewAfterGate, autoFix } = ctx.opts;
        if (context === undefined && reviewAfterGate === undefined && autoFix === undefined) {
          ctx.out.show(rb, (b) => fields(b, GATE_SHOWN));
          return;
        }
        const body = {
          connection_id: rb.connection_id,
          repo: rb.repo,
          ...(context !== undefined && { gate_context: context }),
          ...(reviewAfterGate !== undefined && { review_after_gate: reviewAfterGate === "on" }),
          ...(autoFix !== undefined && { auto_fix_on_gate_failure: autoFix === "on" }),
        };
        ctx.out.show(await api.post(path(team!), body), (b) => fields(b, [...GATE_SHOWN, "forge_written"]));
      }),
    );
}
