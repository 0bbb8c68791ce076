import { invalid, notFound } from "../core/errors.js";
import { findDeliveryOfWebhook, pageDeliveries } from "../store/delivery-pages.js";
import { findRun } from "../store/runs.js";
import type { DeliveryStatus } from "../store/schema/webhooks.js";
import type { Store } from "../store/store.js";
import { findWebhookOfTeam, type WebhookRow } from "../store/webhooks.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { TeamRow } from "../store/tenancy.js";
import { deliveryView } from "../webhooks/webhook-views.js";
import { traceOf } from "./delivery-trace.js";
import { shownHeaders, type OpenedRequest, type RequestKeeper } from "./request-keeper.js";
import { findRedelivery, listRedeliveriesOf } from "../store/kept-requests.js";
import type { ProviderName } from "../webhooks/webhook-config.js";
import { iso } from "../core/iso.js";

export const DELIVERIES_DEFAULT_LIMIT = 100;
export const DELIVERIES_MAX_LIMIT = 1000;
const STATUSES: ReadonlySet<string> = new Set<DeliveryStatus>([
  "accepted",
  "launched",
  "duplicate",
  "filtered",
  "invalid",
  "rate_limited",
  "quota_exceeded",
  "launch_error",
]);

/** The delivery list's query: a cursor (`after` or `before`, a delivery id) and filters. */
export interface DeliveryListQuery {
  limit?: number;
  after?: string;
  before?: string;
  status?: string;
  event?: string;
  /** ISO 8601 or epoch ms. */
  since?: string | number;
}

export interface DeliveryLogDeps {
  store: Store;
  access: Access;
  keptRequests: RequestKeeper;
}

/** A webhook's delivery log as team members read it: pages with cursors, and one delivery opened. */
export class DeliveryLog {
  constructor(private readonly deps: DeliveryLogDeps) {}

  /**
   * A page, newest first. `before` reads older rows than a delivery, `after` the newer rows
   * nearest to it (what `--follow` asks for); `has_more` says whether more lie that way. The
   * page's `before` and `after` cursors are its oldest and newest ids.
   */
  async page(p: Principal, teamId: string, webhookId: string, q: DeliveryListQuery) {
    await this.webhook(p, teamId, webhookId, "member");
    const limit = q.limit ?? DELIVERIES_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > DELIVERIES_MAX_LIMIT) {
      throw invalid("limit", `limit must be a whole number from 1 to ${DELIVERIES_MAX_LIMIT}`);
    }
    if (q.after !== undefined && q.before !== undefined) throw invalid("after", "give after or before, not both");
    if (q.status !== undefined && !STATUSES.has(q.status)) throw invalid("status", `status must be one of ${[...STATUSES].join(", ")}`);
    const db = this.deps.store.db;
    const cursor = async (field: "after" | "before", id: string | undefined) => {
      if (id === undefined) return undefined;
      const row = await findDeliveryOfWebhook(db, webhookId, id);
      if (!row) throw invalid(field, `${field} must name a delivery of this webhook`);
      return row;
    };
    const { rows, more } = await pageDeliveries(db, webhookId, {
      limit,
      after: await cursor("after", q.after),
      before: await cursor("before", q.before),
      status: q.status as DeliveryStatus | undefined,
      eventKind: q.event,
      since: sinceOf(q.since),
    });
    return {
      deliveries: rows.map(deliveryView),
      has_more: more,
      before: rows.at(-1)?.id ?? null,
      after: rows[0]?.id ?? q.after ?? null,
    };
  }

  /**
   * One delivery: its row, the trace of the steps it passed, the run it started, its request
   * when kept (signatures and tokens redacted), and what it sent again or was sent again as.
   */
  async show(p: Principal, teamId: string, webhookId: string, deliveryId: string) {
    const hook = await this.webhook(p, teamId, webhookId, "member");
    const db = this.deps.store.db;
    const row = await findDeliveryOfWebhook(db, webhookId, deliveryId);
    if (!row) throw notFound("delivery");
    const run = row.run_id ? await findRun(db, row.run_id) : undefined;
    const kept = await this.deps.keptRequests.open(webhookId, deliveryId);
    const again = await findRedelivery(db, deliveryId);
    return {
      delivery: deliveryView(row),
      trace: traceOf(row),
      run: run ? { id: run.id, status: run.status, bot_id: run.bot_id, failure_code: run.failure_code } : null,
      request: kept ? requestView(kept) : null,
      request_missing: kept
        ? null
        : hook.keep_payloads === 1
          ? "not kept: it arrived before keeping was on, or its retention ended"
          : "keep_payloads is off for this webhook",
      redelivery_of: again?.redelivery_of ?? null,
      redelivery: again ? { proof: again.proof, fresh_key: again.fresh_key !== null, requested_by: again.requested_by } : null,
      redelivered_as: await listRedeliveriesOf(db, deliveryId),
    };
  }

  /** Whether this webhook's log holds a delivery: the caller is checked already. */
  async recorded(webhookId: string, deliveryId: string): Promise<boolean> {
    return (await findDeliveryOfWebhook(this.deps.store.db, webhookId, deliveryId)) !== undefined;
  }

  /** The webhook, when the caller holds `need` on its team (a webhook of another team is not found). */
  async webhook(p: Principal, teamId: string, webhookId: string, need: "member" | "admin"): Promise<WebhookRow> {
    return (await this.teamWebhook(p, teamId, webhookId, need)).hook;
  }

  /** The webhook and its team, when the caller holds `need` on the team. */
  async teamWebhook(p: Principal, teamId: string, webhookId: string, need: "member" | "admin"): Promise<{ hook: WebhookRow; team: TeamRow }> {
    const { team } = await this.deps.access.team(p, teamId, need);
    const hook = await findWebhookOfTeam(this.deps.store.db, teamId, webhookId);
    if (!hook) throw notFound("webhook");
    return { hook, team };
  }
}

function sinceOf(since: string | number | undefined): number | undefined {
  if (since === undefined || since === "") return undefined;
  const ms = typeof since === "number" || /^\d+$/.test(since) ? Number(since) : Date.parse(since);
  if (!Number.isFinite(ms)) throw invalid("since", "since must be an ISO 8601 time or epoch milliseconds");
  return ms;
}

/** A kept request as a reader sees it: signature and token headers redacted, a UTF-8 body as text, another as base64. */
function requestView(r: OpenedRequest) {
  const text = r.body === null ? null : utf8(r.body);
  const encoding: "utf8" | "base64" | null = r.body === null ? null : text === undefined ? "base64" : "utf8";
  return {
    id: r.id,
    received_at: iso(r.createdAt),
    expires_at: iso(r.expiresAt),
    headers: shownHeaders(r.provider as ProviderName, r.headers),
    body_bytes: r.bodyBytes,
    body_kept: r.body !== null,
    body_encoding: encoding,
    body: r.body === null ? null : (text ?? r.body.toString("base64")),
  };
}

const decoder = new TextDecoder("utf-8", { fatal: true });
function utf8(b: Buffer): string | undefined {
  try {
    return decoder.decode(b);
  } catch {
    return undefined;
  }
}
