import { effectiveLimit, type OrgLimitDefaults } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import { invalid } from "../core/errors.js";
import { microToUsd } from "../core/money.js";
import { monthOf, parseMonth } from "../core/month.js";
import { listCredentialUsage, type LedgerFilter } from "../store/ledger.js";
import type { Store } from "../store/store.js";
import { countOrgMembers, listTeamsOfOrg, type OrgRow } from "../store/tenancy.js";
import { countActiveRunsByTeam, countOrgResources, findOrgUsage, listOrgDailyUsage } from "../store/usage.js";
import type { Access, Principal } from "../tenancy/access.js";
import { orgView } from "../tenancy/views.js";
import { CREDENTIAL_TIERS, type CredentialTier } from "./metering.js";

export interface CredentialQuery {
  month?: string;
  tier?: string;
  fingerprint?: string;
  repo?: string;
}

/** The org usage view and the credential ledger listings. */
export class UsageViews {
  constructor(private readonly deps: { store: Store; clock: Clock; access: Access; defaults: OrgLimitDefaults }) {}

  /** `GET /api/admin/orgs/{id}/usage` (scope admin) and `GET /api/orgs/{id}/usage` (scope org). */
  async orgUsage(p: Principal, orgId: string, scope: "admin" | "org") {
    let org: OrgRow;
    if (scope === "admin") {
      this.deps.access.requireSuperAdmin(p);
      org = (await this.deps.access.org(p, orgId, "member")).org;
    } else {
      org = (await this.deps.access.org(p, orgId, "member")).org;
    }
    const db = this.deps.store.db;
    const d = this.deps.defaults;
    const month = monthOf(this.deps.clock.now());
    const usage = await findOrgUsage(db, orgId, month);
    const counts = await countOrgResources(db, orgId, month);
    const activeByTeam = await countActiveRunsByTeam(db, orgId);
    const teams = await listTeamsOfOrg(db, orgId);
    return {
      month,
      scope,
      org: orgView(org),
      members: await countOrgMembers(db, orgId),
      // No platform default exists for memory: the org's own quota, 0 = none.
      effective_memory_quota_bytes: Number(org.memory_quota_bytes),
      monthly_run_quota: effectiveLimit(Number(org.monthly_run_quota), d.monthlyRunQuota),
      runs_this_month: usage.runs,
      cost_usd_this_month: microToUsd(usage.costMicro),
      input_tokens_this_month: usage.inputTokens,
      output_tokens_this_month: usage.outputTokens,
      aggregate_tokens_this_month: usage.aggregateTokens,
      monthly_cost_cap_usd: microToUsd(effectiveLimit(Number(org.monthly_cost_cap_micro), d.monthlyCostCapMicroUsd)),
      // The limit is per team: at org level this is the platform default a team without its own
      // override gets; `teams` lists every team's effective value.
      max_concurrent_runs: d.maxConcurrentRuns,
      active_runs: counts.activeRuns,
      webhook_calls_this_month: counts.webhookCalls,
      // The service keeps no memory store yet: nothing is used.
      memory_used_bytes: 0,
      api_key_count: counts.apiKeys,
      generic_secret_count: counts.secrets,
      bot_binding_count: counts.botBindings,
      webhook_count: counts.webhooks,
      teams: teams.map((t) => ({
        id: t.id,
        name: t.name,
        max_concurrent_runs: effectiveLimit(Number(t.max_concurrent_runs), d.maxConcurrentRuns),
        launch_rate_per_min: effectiveLimit(Number(t.launch_rate_per_min), d.launchRatePerMin),
        active_runs: activeByTeam.get(t.id) ?? 0,
      })),
    };
  }

  /**
   * The org's month day by day (org members, as the org usage view): one row per UTC day, runs
   * created and spend recorded; this month up to today, a past month whole, a later one empty.
   * No month is the current one; an unparseable one is refused (400), never replaced.
   */
  async orgDaily(p: Principal, orgId: string, rawMonth?: string) {
    await this.deps.access.org(p, orgId, "member");
    const now = this.deps.clock.now();
    const month = this.month(rawMonth);
    const start = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1, 1);
    const next = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1);
    const days = start > now ? [] : await listOrgDailyUsage(this.deps.store.db, orgId, month, start, Math.min(next, now + 1));
    return {
      month,
      org_id: orgId,
      days: days.map((d) => ({ date: new Date(d.dayStart).toISOString().slice(0, 10), runs: d.runs, cost_usd: microToUsd(d.costMicro) })),
    };
  }

  /** The team's own share of the ledger, every tier. */
  async teamCredentials(p: Principal, teamId: string, query: CredentialQuery) {
    await this.deps.access.team(p, teamId, "member");
    const month = this.month(query.month);
    const repo = query.repo || undefined;
    return this.listing({ month, teamId, repo }, { tier: null, fingerprint: null, repo: repo ?? null, team_id: teamId });
  }

  /** Every tenant's spend on a tier (platform by default). */
  async adminCredentials(p: Principal, query: CredentialQuery) {
    this.deps.access.requireSuperAdmin(p);
    const month = this.month(query.month);
    const fingerprint = query.fingerprint || undefined;
    const repo = query.repo || undefined;
    if (fingerprint && repo) throw invalid("repo", "fingerprint and repo cannot be combined");
    const tier = (query.tier || "platform") as CredentialTier;
    if (!CREDENTIAL_TIERS.includes(tier)) throw invalid("tier", `tier must be one of ${CREDENTIAL_TIERS.join(", ")}`);
    return this.listing({ month, tier, fingerprint, repo }, { tier, fingerprint: fingerprint ?? null, repo: repo ?? null, team_id: null });
  }

  /** An omitted month is the current one; an unparseable month is refused, never replaced. */
  private month(raw: string | undefined): string {
    if (raw === undefined) return monthOf(this.deps.clock.now());
    const m = parseMonth(raw);
    if (!m) throw invalid("month", "month must be YYYY-MM");
    return m;
  }

  private async listing(filter: LedgerFilter, scope: Record<string, string | null>) {
    const lines = await listCredentialUsage(this.deps.store.db, filter);
    return {
      month: filter.month,
      scope,
      credentials: lines.map((l) => ({
        fingerprint: l.fingerprint,
        provider: l.provider,
        tier: l.tier,
        ...(filter.repo ? { repo: filter.repo } : {}),
        // Real money and subscription-equivalent estimates are never added together.
        metered_usd: microToUsd(l.metered_micro),
        estimated_usd: microToUsd(l.estimated_micro),
        attempts: l.attempts,
        input_tokens: l.input_tokens,
        output_tokens: l.output_tokens,
        aggregate_tokens: l.aggregate_tokens,
        ...(filter.teamId ? {} : { tenants: l.tenants }),
      })),
    };
  }
}
