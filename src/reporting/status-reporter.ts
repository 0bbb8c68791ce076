import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { Periodic } from "../core/periodic.js";
import type { CommitState } from "../forges/shared/forge-client.js";
import type { WebhookForges } from "../intake/lanes/forge/webhook-forge.js";
import type { Metrics } from "../metrics/metrics.js";
import {
  deliveredRunChanges,
  dueStatusReports,
  markStatusFailed,
  markStatusReported,
  putStatusReport,
  takeStatusReport,
  type DeliveredRunChange,
} from "../store/status-reports.js";
import type { Store } from "../store/store.js";
import { findWebhook } from "../store/webhooks.js";
import type { WebhookConfig } from "../webhooks/webhook-config.js";
import { configFromRow } from "../webhooks/webhook-record.js";

/** How often every replica follows runs and sends due reports. */
const SWEEP_EVERY_MS = 5_000;
/** Run changes taken, and reports sent, per pass at most. */
const BATCH = 200;
/** A run changed this long before the last pass is looked at again: a write committed late is still seen. */
const SLACK_MS = 60_000;
/** How far back the first pass of a process looks. */
const FIRST_LOOK_BACK_MS = 24 * 3_600_000;
/** A report the forge keeps refusing is given up after this many tries. */
export const MAX_TRIES = 8;
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 30 * 60_000;
/** A row being sent is not sent by another replica for this long (a sender that died is taken over after it). */
const TAKEN_FOR_MS = 2 * 60_000;
/** GitHub's limit for a commit status's description; the others take more. */
const DESCRIPTION_MAX = 140;

export type ReportResult = "sent" | "failed" | "gave_up";

/** Whether a webhook's runs are shown on its forge: as set, else only for a provisioned repository. */
export function reportsStatus(c: Pick<WebhookConfig, "provider" | "report_status" | "provisioned_by">): boolean {
  return c.provider !== "generic" && (c.report_status ?? c.provisioned_by !== null);
}

/** What the forge shows for a run in its present state: the one place a run status becomes a commit state. */
export function commitStateOf(run: Pick<DeliveredRunChange, "status" | "summary" | "question" | "failure_code" | "retry_at">): {
  state: CommitState;
  description: string;
} {
  const said = (fallback: string) => oneLine(run.summary ?? "") || fallback;
  switch (run.status) {
    case "queued":
      return { state: "pending", description: "Queued" };
    case "running":
      return { state: "running", description: "Running" };
    case "succeeded":
      return { state: "success", description: said("Succeeded") };
    case "cancelled":
      return { state: "cancelled", description: "Cancelled" };
    case "failed_resumable":
      if (run.question !== null) return { state: "pending", description: "Waiting for an answer" };
      if (run.retry_at !== null) return { state: "pending", description: "Waiting to retry" };
      return { state: "failure", description: said(`Failed (${run.failure_code ?? "resumable"})`) };
    default:
      return run.failure_code === "LAUNCH_FAILED" || run.failure_code === "RUNNER_LOST"
        ? { state: "error", description: said(`Could not run (${run.failure_code})`) }
        : { state: "failure", description: said(`Failed (${run.failure_code ?? "unknown"})`) };
  }
}

const FINAL = new Set<string>(["success", "failure", "error", "cancelled"]);

/** The forge last showed a final state, and the run has gone back to pending or running. */
function reopened(reportedKey: string | null): boolean {
  return reportedKey !== null && FINAL.has(reportedKey.split("|")[0]!);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > DESCRIPTION_MAX ? `${line.slice(0, DESCRIPTION_MAX - 1)}…` : line;
}

export interface StatusReporterDeps {
  store: Store;
  clock: Clock;
  forges: Pick<WebhookForges, "open">;
  metrics: Metrics;
  log: Logger;
  /** The service's public address: a status links to the run's console page. */
  baseUrl: string;
  contextPrefix: string;
}

/**
 * Shows runs launched by forge deliveries on their commit. Each pass first follows the runs
 * that changed (the runs table is the one record of a run's state), writing the state the forge
 * should show into the run's outbox row; then sends the due rows through the webhook's forge
 * client. A forge failure never touches the run: the row is tried again with backoff, up to
 * {@link MAX_TRIES}; a state the forge already shows is not sent again. No forge call happens
 * while a delivery is received.
 */
export class StatusReporter {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;
  private since: number | undefined;

  constructor(private readonly deps: StatusReporterDeps) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.tick(deps.clock.now()));
  }

  /** One pass at `now`: each sent report's result by run id. */
  async tick(now: number): Promise<Map<string, ReportResult>> {
    await this.follow(now);
    return this.send(now);
  }

  private async follow(now: number): Promise<void> {
    const { store } = this.deps;
    const since = this.since ?? now - FIRST_LOOK_BACK_MS;
    const changes = await deliveredRunChanges(store.db, since, BATCH);
    const configs = new Map<string, WebhookConfig | null>();
    for (const change of changes) {
      const want = commitStateOf(change);
      const same = want.state === change.report_state && want.description === change.report_description;
      if (same && change.report_seen_at === change.updated_at) continue;
      if (change.report_state === null) {
        if (!configs.has(change.webhook_id)) {
          const row = await findWebhook(store.db, change.webhook_id);
          configs.set(change.webhook_id, row ? configFromRow(row) : null);
        }
        const config = configs.get(change.webhook_id);
        if (!config || !reportsStatus(config)) continue;
      }
      await putStatusReport(store.db, {
        runId: change.run_id,
        webhookId: change.webhook_id,
        ...want,
        runUpdatedAt: change.updated_at,
        now,
      });
    }
    // A full batch continues where it stopped; otherwise the next pass starts a little before this one.
    this.since = changes.length === BATCH ? changes.at(-1)!.updated_at : Math.max(since, now - SLACK_MS);
  }

  private async send(now: number): Promise<Map<string, ReportResult>> {
    const { store, forges, metrics, log } = this.deps;
    const results = new Map<string, ReportResult>();
    const due = await dueStatusReports(store.db, now, BATCH);
    for (const row of due) {
      // Every replica sweeps: the row is taken first, so a check run is not created twice.
      if (!(await takeStatusReport(store.db, row.run_id, Number(row.due_at), now + TAKEN_FOR_MS))) continue;
      const key = { state: row.state, description: row.description };
      const webhook = await findWebhook(store.db, row.webhook_id);
      const repo = row.project_path ?? row.run_project_path;
      if (!webhook || webhook.provider === "generic" || !row.subject_sha || !repo) {
        await markStatusFailed(store.db, row.run_id, key, { tries: row.tries, dueAt: null, error: "the run's webhook or commit is gone" });
        continue;
      }
      const config = configFromRow(webhook);
      const provider = webhook.provider as Exclude<WebhookConfig["provider"], "generic">;
      let error: string | undefined;
      let retryable = true;
      let checkRunId: string | null = null;
      const opened = await forges.open(config, provider);
      if (!opened.ok) error = opened.reason;
      else {
        const sent = await opened.client.setStatus(repo, row.subject_sha, {
          state: row.state as CommitState,
          context: `${this.deps.contextPrefix}/${row.bot_id}`,
          description: row.description,
          targetUrl: `${this.deps.baseUrl.replace(/\/+$/, "")}/console/runs/${encodeURIComponent(row.run_id)}`,
          // A check run that was completed stays so: a resumed run gets a new one.
          ...(opened.viaApp && provider === "forge_b" && { checkRun: { id: reopened(row.reported_key) ? null : row.check_run_id } }),
        });
        if (sent.ok) checkRunId = sent.value.checkRunId;
        else {
          error = `${sent.error.code}: ${sent.error.reason}`;
          // The forge refused the request itself (a 4xx other than a rate limit): sending it again gets the same answer.
          retryable = sent.error.code !== "forge_rejected";
        }
      }
      if (error === undefined) {
        await markStatusReported(store.db, row.run_id, key, checkRunId);
        results.set(row.run_id, "sent");
      } else {
        const tries = row.tries + 1;
        const giveUp = !retryable || tries >= MAX_TRIES;
        const dueAt = giveUp ? null : now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (tries - 1));
        await markStatusFailed(store.db, row.run_id, key, { tries, dueAt, error });
        results.set(row.run_id, giveUp ? "gave_up" : "failed");
        log.warn(
          { run_id: row.run_id, webhook_id: row.webhook_id, provider, tries, error },
          giveUp ? "forge status report given up" : "forge status report failed; retried later",
        );
      }
      metrics.forgeStatusReports.inc({ provider, result: results.get(row.run_id)! });
    }
    return results;
  }
}
