import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const STATUS_CLASSES = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];

/**
 * The service_* metric catalog, on a registry of its own. No metric carries a tenant label:
 * label values come from closed sets (provider, status, reason, result, step).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly webhookDeliveries = this.counter("service_webhook_deliveries_total", "Every delivery's terminal status", ["provider", "status"]);
  readonly webhookThrottled = this.counter("service_webhook_throttled_total", "Deliveries throttled before processing", ["provider", "reason"]);
  readonly webhookPreviousSecretAccepted = this.counter(
    "service_webhook_previous_secret_accepted_total",
    "Deliveries proven by a webhook's previous token or secret, inside a rotation's overlap",
    ["provider"],
  );
  readonly launchDenied = this.counter("service_launch_denied_total", "Launches denied by the gate", ["reason"]);
  readonly launchGateErrors = this.counter("service_launch_gate_errors_total", "Launch gate store errors; the gate failed open (stage: check or meter)", [
    "stage",
  ]);
  readonly authLogins = this.counter("service_auth_logins_total", "Login attempts", ["result"]);
  readonly authPasswordResets = this.counter("service_auth_password_resets_total", "Password reset flow", ["step"]);
  readonly sweeperPasses = this.counter("service_sweeper_passes_total", "Timed passes of each periodic sweeper (src/sweepers.ts)", ["sweeper", "result"]);
  readonly dlqDepth = this.gauge("service_dlq_depth", "Runs parked on the dead-letter queue");
  readonly orphanRecovered = this.counter("service_runs_orphan_recovered_total", "Orphan sweeper flips to failed_resumable");
  readonly usageWindowBlocked = this.counter("service_runs_usage_window_blocked_total", "Runs stopped by an exhausted provider window");
  readonly retryScheduled = this.counter("service_runs_retry_scheduled_total", "Automatic retries armed");
  readonly retryResumed = this.counter("service_runs_retry_resumed_total", "Retry sweeper outcomes", ["result"]);
  readonly retryPending = this.gauge("service_runs_retry_pending", "Due retries seen in the latest sweep");
  readonly retrySweeps = this.counter("service_runs_retry_sweeps_total", "Sweeper passes");
  readonly runnerHeartbeatErrors = this.counter(
    "service_runner_heartbeat_errors_total",
    "Runner heartbeats that failed: the service could not extend the lease, or the runner could not reach it",
    ["pool"],
  );
  readonly runnerClaims = this.counter("service_runner_claims_total", "Runner claims by pool (platform, org) and result (claimed, empty, failed)", [
    "pool",
    "result",
  ]);
  /** Filled at scrape time from {@link observeRunners}'s source. */
  readonly runnersConnected = new Gauge({
    name: "service_runners_connected",
    help: "Runners seen within the lease window, by pool (platform, org)",
    labelNames: ["pool"] as const,
    registers: [this.registry],
    collect: async () => {
      if (!this.runnerSource) return;
      const counts = await this.runnerSource();
      for (const pool of ["platform", "org"] as const) this.runnersConnected.set({ pool }, counts[pool] ?? 0);
    },
  });
  private runnerSource: (() => Promise<Partial<Record<"platform" | "org", number>>>) | undefined;
  readonly httpAborted = this.counter("service_http_aborted_total", "Requests their callers abandoned before the end of the body", ["route"]);
  readonly httpBodiesRefused = this.counter("service_http_bodies_refused_total", "Request bodies refused unread or part-read (too_large, busy)", ["reason"]);
  readonly httpBodyBytes = this.gauge("service_http_body_bytes", "Bytes of request bodies held by the process");
  readonly forgeSecurityTokens = this.counter("service_forge_security_tokens_total", "Security-read org tokens minted, renewed and revoked on the forges", [
    "action",
    "result",
  ]);
  readonly forgeTokenRevocations = this.counter(
    "service_forge_token_revocations_total",
    "Tokens the service minted (renewed security-read tokens' predecessors, attempts' App installation tokens) taken for revocation, by result (revoked, expired, connection_gone, failed)",
    ["provider", "result"],
  );
  readonly forgeHookHealthChecks = this.counter("service_forge_hook_health_checks_total", "Provisioned repositories' hook health reports, by status", [
    "status",
  ]);
  readonly forgeHookRepairs = this.counter("service_forge_hook_repairs_total", "Provisioned repositories' hooks written again by a repair", ["provider"]);
  readonly forgeStatusReports = this.counter("service_forge_status_reports_total", "Runs' states sent to the forges as commit statuses, by result", [
    "provider",
    "result",
  ]);
  readonly runsFinished = this.counter("service_runs_finished_total", "Runs that reached a terminal state", ["status"]);
  readonly httpRequestDuration = new Histogram({
    name: "service_http_request_duration_seconds",
    help: 'Time from a request\'s arrival to its answer, by route template, method and status class (2xx, 4xx, …); unmatched paths are route="unmatched"',
    labelNames: ["route", "method", "status_class"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** One child per (route, method, status class): an observation does not hash its labels again. */
  private readonly httpChildren = new Map<string, { observe(seconds: number): void }>();

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: "service_" });
      // prom-client names these gauges *_total, which promtool rightly rejects.
      for (const name of ["active_handles_total", "active_requests_total", "active_resources_total"]) {
        this.registry.removeSingleMetric(`service_nodejs_${name}`);
      }
    }
  }

  /** Where service_runners_connected reads its counts when scraped. */
  observeRunners(source: () => Promise<Partial<Record<"platform" | "org", number>>>): void {
    this.runnerSource = source;
  }

  /** One answered request into service_http_request_duration_seconds. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const statusClass = STATUS_CLASSES[Math.floor(status / 100)] ?? "other";
    const key = `${method} ${statusClass} ${route}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.httpRequestDuration.labels(route, method, statusClass);
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge(name: string, help: string) {
    return new Gauge({ name, help, registers: [this.registry] });
  }
}
