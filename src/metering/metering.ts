import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { monthOf } from "../core/month.js";
import { listAttemptKeys } from "../store/attempt-credentials.js";
import { addCredentialUsage, attemptAlreadyCharged, insertUsageEvent } from "../store/ledger.js";
import { findRun } from "../store/runs.js";
import type { Db, Store } from "../store/store.js";
import { addOrgSpend } from "../store/usage.js";
import { attributeUsage } from "./attribute-usage.js";
import type { CredentialTier, UsageReport } from "./usage-report.js";

export { CREDENTIAL_TIERS, type CredentialTier, type UsageReport } from "./usage-report.js";

/**
 * Adds an attempt's spend to the org's month and to the credential ledger. Best effort: the
 * caller's run is finished whatever happens here, so failures are logged, never thrown.
 */
export class Metering {
  constructor(private readonly deps: { store: Store; clock: Clock; log: Logger }) {}

  /** Returns true when the report was new and recorded. */
  async record(runId: string, attempt: number, report: UsageReport): Promise<boolean> {
    try {
      return await this.recordOrThrow(runId, attempt, report);
    } catch (err) {
      this.deps.log.error({ err, runId, reportId: report.reportId }, "metering failed; the run is unaffected");
      return false;
    }
  }

  private recordOrThrow(runId: string, attempt: number, r: UsageReport): Promise<boolean> {
    const now = this.deps.clock.now();
    const month = monthOf(now);
    return this.deps.store.tx(async (tx) => {
      const run = await findRun(tx, runId);
      if (!run) return false;
      const repo = r.repo ?? repoSlug(run.repo_url) ?? "";
      const handed = (await listAttemptKeys(tx, runId, attempt)).map((k) => ({ ...k, tier: k.tier as CredentialTier }));
      const charged = attributeUsage(r, handed);
      const event = {
        id: `${runId}:${r.reportId}`,
        run_id: runId,
        attempt,
        report_id: r.reportId,
        org_id: run.org_id,
        team_id: run.team_id,
        month,
        cost_micro: r.costMicro,
        input_tokens: r.inputTokens,
        output_tokens: r.outputTokens,
        aggregate_tokens: r.aggregateTokens,
        fingerprint: charged?.fingerprint ?? null,
        provider: charged?.provider ?? r.provider,
        tier: charged?.tier ?? null,
        repo,
        amount_type: r.amountType,
        created_at: now,
      };
      if (!(await insertUsageEvent(tx, event))) return false;
      // The org counter is charged whatever credential served the run.
      await addOrgSpend(tx, run.org_id, month, r, now);
      // The ledger charges the key the attempt was handed, and nobody for a run it cannot attribute.
      if (charged) await chargeKey(tx, { ...charged, team_id: run.team_id, month, repo }, { run_id: runId, attempt, id: event.id }, r, now);
      return true;
    });
  }
}

/** The credential ledger's row of the key charged: an attempt counts once, however many reports it sends. */
async function chargeKey(
  tx: Db,
  key: Parameters<typeof addCredentialUsage>[1],
  of: { run_id: string; attempt: number; id: string },
  r: UsageReport,
  now: number,
): Promise<void> {
  const seen = await attemptAlreadyCharged(tx, { ...key, ...of });
  await addCredentialUsage(
    tx,
    key,
    {
      meteredMicro: r.amountType === "metered" ? r.costMicro : 0,
      estimatedMicro: r.amountType === "estimate" ? r.costMicro : 0,
      attempts: seen ? 0 : 1,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      aggregateTokens: r.aggregateTokens,
    },
    now,
  );
}

/** `owner/repo` (or a nested group path) from a clone URL; undefined when it has no path. */
export function repoSlug(url: string | null): string | undefined {
  if (!url) return undefined;
  const scp = /^[\w.-]+@[\w.-]+:(.+)$/.exec(url);
  let p: string;
  if (scp) {
    p = scp[1]!;
  } else {
    try {
      p = new URL(url).pathname;
    } catch {
      return undefined;
    }
  }
  const slug = p.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  return slug.includes("/") ? slug : undefined;
}
