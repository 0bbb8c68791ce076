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
    const reports = webhookReports(store);
    for (const change of changes) {
      const want = commitStateOf(change);
      const same = want.state === change.report_state && want.description === change.report_description;
      if (same && change.report_seen_at === change.updated_at) continue;
      // A run not shown yet is shown only when its webhook shows runs on the forge.
      if (change.report_state === null && !(await reports(change.webhook_id))) continue;
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
    const { store } = this.deps;
    const results = new Map<string, ReportResult>();
    const due = await dueStatusReports(store.db, now, BATCH);
    for (const row of due) {
      // Every replica sweeps: the row is taken first, so a check run is not created twice.
      if (!(await takeStatusReport(store.db, row.run_id, Number(row.due_at), now + TAKEN_FOR_MS))) continue;
      const result = await this.report(row, now);
      if (result !== undefined) results.set(row.run_id, result);
    }
    return results;
  }

  /** Sends one taken row and records how it went; undefined when its webhook or commit is gone. */
  private async report(row: DueReport, now: number): Promise<ReportResult | undefined> {
    const { store, metrics } = this.deps;
    const key = { state: row.state, description: row.description };
    const webhook = await findWebhook(store.db, row.webhook_id);
    const repo = row.project_path ?? row.run_project_path;
    if (!webhook || webhook.provider === "generic" || !row.subject_sha || !repo) {
      await markStatusFailed(store.db, row.run_id, key, { tries: row.tries, dueAt: null, error: "the run's webhook or commit is gone" });
      return undefined;
    }
    const provider = webhook.provider as ForgeProvider;
    const sent = await this.setStatus(row, configFromRow(webhook), provider, repo, row.subject_sha);
    const result = sent.ok ? await this.reported(row, key, sent.checkRunId) : await this.failed(row, key, provider, sent, now);
    metrics.forgeStatusReports.inc({ provider, result });
    return result;
  }

  /** The row's state set on its commit through the webhook's forge client. */
  private async setStatus(row: DueReport, config: WebhookConfig, provider: ForgeProvider, repo: string, sha: string): Promise<SendOutcome> {
    const opened = await this.deps.forges.open(config, provider);
    if (!opened.ok) return { ok: false, error: opened.reason, retryable: true };
    const sent = await opened.client.setStatus(repo, sha, {
      state: row.state as CommitState,
      context: `${this.deps.contextPrefix}/${row.bot_id}`,
      description: row.description,
      targetUrl: `${this.deps.baseUrl.replace(/\/+$/, "")}/console/runs/${encodeURIComponent(row.run_id)}`,
      // A check run that was completed stays so: a resumed run gets a new one.
      ...(opened.viaApp && provider === "forge_b" && { checkRun: { id: reopened(row.reported_key) ? null : row.check_run_id } }),
    });
    if (sent.ok) return { ok: true, checkRunId: sent.value.checkRunId };
    // The forge refused the request itself (a 4xx other than a rate limit): sending it again gets the same answer.
    return { ok: false, error: `${sent.error.code}: ${sent.error.reason}`, retryable: sent.error.code !== "forge_rejected" };
  }

  private async reported(row: DueReport, key: ReportKey, checkRunId: string | null): Promise<ReportResult> {
    await markStatusReported(this.deps.store.db, row.run_id, key, checkRunId);
    return "sent";
  }

  /** A failure is tried again with backoff, and given up when not worth retrying or after {@link MAX_TRIES}. */
  private async failed(row: DueReport, key: ReportKey, provider: ForgeProvider, sent: SendFailure, now: number): Promise<ReportResult> {
    const { error } = sent;
    const tries = row.tries + 1;
    const giveUp = !sent.retryable || tries >= MAX_TRIES;
    const dueAt = giveUp ? null : now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (tries - 1));
    await markStatusFailed(this.deps.store.db, row.run_id, key, { tries, dueAt, error });
    this.deps.log.warn(
      { run_id: row.run_id, webhook_id: row.webhook_id, provider, tries, error },
      giveUp ? "forge status report given up" : "forge status report failed; retried later",
    );
    return giveUp ? "gave_up" : "failed";
  }
}

type DueReport = Awaited<ReturnType<typeof dueStatusReports>>[number];
type ReportKey = { state: string; description: string };
type ForgeProvider = Exclude<WebhookConfig["provider"], "generic">;
type SendFailure = { ok: false; error: string; retryable: boolean };
type SendOutcome = { ok: true; checkRunId: string | null } | SendFailure;

/** Whether a webhook shows its runs on the forge, each webhook looked up once per pass. */
function webhookReports(store: Store): (webhookId: string) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return async (webhookId) => {
    let reports = known.get(webhookId);
    if (reports === undefined) {
      const row = await findWebhook(store.db, webhookId);
      reports = row ? reportsStatus(configFromRow(row)) : false;
      known.set(webhookId, reports);
    }
    return reports;
  };
}
