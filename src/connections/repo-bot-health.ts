import type { Clock } from "../core/clock.js";
import { notFound, ServiceError } from "../core/errors.js";
import { iso } from "../core/iso.js";
import type { ForgeError } from "../forges/shared/forge-client.js";
import { toForgeError } from "../forges/shared/forge-errors.js";
import type { HookState } from "../forges/shared/forge-hooks.js";
import type { Metrics } from "../metrics/metrics.js";
import * as f from "../store/forge-connections.js";
import type { Store } from "../store/store.js";
import { webhookDeliverySignals } from "../store/webhook-delivery-signals.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { ConnectionService, OpenConnection } from "./connection-service.js";
import { type HookFacts, judgeHookHealth, summariseDeliveries } from "./hook-health.js";
import type { ProvisionService } from "./provision-service.js";

export interface RepoBotHealthDeps {
  store: Store;
  clock: Clock;
  access: Access;
  connections: ConnectionService;
  provisioning: ProvisionService;
  metrics: Metrics;
}

/** GitHub's latest deliveries a report looks at: enough to tell a failing hook from one bad answer. */
const DELIVERIES_CHECKED = 10;

/** A provisioned repository's hook read back from the forge and judged (hook-health.ts); and its repair. */
export class RepoBotHealth {
  constructor(private readonly deps: RepoBotHealthDeps) {}

  async check(p: Principal, teamId: string, repoBotId: string) {
    await this.deps.access.team(p, teamId, "member");
    return this.report(teamId, repoBotId);
  }

  /** The provision's hook write forced (team admin), then the health read back after it. */
  async repair(p: Principal, teamId: string, repoBotId: string) {
    await this.deps.provisioning.repair(p, teamId, repoBotId);
    const report = await this.report(teamId, repoBotId);
    this.deps.metrics.forgeHookRepairs.inc({ provider: report.provider });
    return report;
  }

  private async report(teamId: string, repoBotId: string) {
    const { store, clock } = this.deps;
    const rb = await f.findRepoBotOfTeam(store.db, teamId, repoBotId);
    if (!rb) throw notFound("repo bot");
    const conn = await this.deps.connections.open(store.db, teamId, rb.connection_id);
    const webhook = await f.findWebhookProvisionedBy(store.db, rb.id);
    const committed = rb.hook_id !== null && rb.hook_url !== null ? { id: rb.hook_id, url: rb.hook_url } : null;
    const read = committed === null ? NOTHING_READ : await this.readForge(conn, rb.repo, committed.id);
    const since = rb.hook_written_at ?? 0;
    const signals = webhook ? await webhookDeliverySignals(store.db, webhook.id, since) : { lastReceivedAt: null, refused: 0, lastRefusedAt: null };
    const { status, problems } = judgeHookHealth({ committed, ...read, refused: { count: signals.refused, latestAt: signals.lastRefusedAt } });
    this.deps.metrics.forgeHookHealthChecks.inc({ status });
    const hook = "read" in read.forge ? read.forge.read : null;
    return {
      repo_bot_id: rb.id,
      repo: rb.repo,
      provider: conn.provider,
      webhook_id: webhook?.id ?? null,
      status,
      problems,
      hook_id: rb.hook_id,
      hook_url: rb.hook_url,
      hook_written_at: iso(rb.hook_written_at),
      hook: hook && hookView(hook),
      deliveries: read.deliveries,
      received: { last_delivery_at: iso(signals.lastReceivedAt), refused_since_written: signals.refused, last_refused_at: iso(signals.lastRefusedAt) },
      checked_at: iso(clock.now()),
    };
  }

  /** The hook and GitHub's latest deliveries of it; or why the forge could not say. */
  private async readForge(conn: OpenConnection, repo: string, hookId: string): Promise<ForgeRead> {
    try {
      const hooks = await conn.hooks();
      const hook = (await hooks.getHook(repo, hookId)) ?? null;
      // A list the forge will not give leaves the report without it, not unreadable.
      const deliveries = hook && hooks.recentDeliveries ? await hooks.recentDeliveries(repo, hookId, DELIVERIES_CHECKED).catch(() => null) : null;
      return { forge: { read: hook }, neededEvents: hooks.neededEvents, deliveries: deliveries && summariseDeliveries(deliveries) };
    } catch (err) {
      return { forge: { unreachable: forgeErrorOf(err, this.deps.clock.now()) }, neededEvents: [], deliveries: null };
    }
  }
}

type ForgeRead = Pick<HookFacts, "forge" | "neededEvents" | "deliveries">;

/** Nothing was committed, so there is nothing on the forge to ask about. */
const NOTHING_READ: ForgeRead = { forge: { read: null }, neededEvents: [], deliveries: null };

/** A forge call's failure; an App's installation token refused arrives already as the API's error. */
function forgeErrorOf(err: unknown, now: number): ForgeError {
  if (err instanceof ServiceError) return { code: err.code === "unprocessable" ? "forge_denied" : "forge_unavailable", reason: err.message };
  return toForgeError(err, () => undefined, now);
}

function hookView(h: HookState) {
  return {
    id: h.id,
    url: h.url,
    active: h.active,
    events: h.events ?? null,
    ...(h.alertStatus !== undefined && { alert_status: h.alertStatus, disabled_until: h.disabledUntil ?? null }),
  };
}
