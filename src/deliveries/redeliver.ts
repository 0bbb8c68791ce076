import { randomUUID } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { conflict, notFound, ServiceError } from "../core/errors.js";
import { signatureAuth, type DeliveryIntake } from "../intake/delivery-intake.js";
import type { DeliveryOutcome, OpenDelivery } from "../intake/delivery-outcome.js";
import type { DeliveryTargets } from "../intake/delivery-targets.js";
import type { BodyAuth } from "../forges/shared/provider.js";
import { providers } from "../forges/providers.js";
import { findDeliveryOfWebhook } from "../store/delivery-pages.js";
import { insertRedeliveries } from "../store/kept-requests.js";
import type { Store } from "../store/store.js";
import type { Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import type { DeliveryLog } from "./delivery-log.js";
import { deliveryIdsOf } from "./outcome-rows.js";
import { replayHeaders, type RequestKeeper } from "./request-keeper.js";

export interface RedeliveryDeps {
  store: Store;
  clock: Clock;
  audit: AuditLog;
  log: DeliveryLog;
  keptRequests: RequestKeeper;
  targets: DeliveryTargets;
  intake: DeliveryIntake;
}

export interface Redelivered {
  outcome: DeliveryOutcome;
  redelivery_of: string;
  /** The rows the redelivery gave. */
  delivery_ids: string[];
  proof: "verified_again" | "verified_on_arrival";
  fresh_key: boolean;
}

/**
 * A kept request sent again through the whole pipeline, against today's configuration, as a new
 * delivery linked to the original: admitted, metered, filtered, routed and gated like any other.
 * Its proof was checked when it arrived; it is checked again when a current secret of the
 * webhook proves the kept signature, and otherwise recorded as proven at arrival. Its launches
 * keep their idempotency keys (a launched event is a duplicate) unless a fresh key is asked for.
 */
export class Redeliveries {
  constructor(private readonly deps: RedeliveryDeps) {}

  async redeliver(p: Principal, teamId: string, webhookId: string, deliveryId: string, opts: { freshKey?: boolean } = {}): Promise<Redelivered> {
    const { hook, team } = await this.deps.log.teamWebhook(p, teamId, webhookId, "admin");
    const { store, clock } = this.deps;
    if (!(await findDeliveryOfWebhook(store.db, webhookId, deliveryId))) throw notFound("delivery");
    const kept = await this.deps.keptRequests.open(webhookId, deliveryId);
    if (!kept) {
      throw conflict(
        hook.keep_payloads === 1
          ? "this delivery's request is not kept (it arrived before keeping was on, or its retention ended)"
          : "this delivery's request is not kept: set keep_payloads on the webhook to keep the next ones",
      );
    }
    if (kept.body === null) throw conflict(`this delivery's body (${kept.bodyBytes} bytes) was larger than the kept-body cap and was not kept`);
    const target = await this.deps.targets.get(webhookId);
    if (!target || target.config.provider !== kept.provider) throw notFound("webhook");
    if (!target.config.enabled) throw new ServiceError("webhook_disabled", "the webhook is disabled: enable it to send a delivery again");

    const headers = replayHeaders(kept.headers);
    const now = clock.now();
    const provider = kept.provider;
    const current = target.config.sign_mode === "token" ? undefined : signatureAuth(target, now);
    const provenAgain = current !== undefined && providers[provider].verify({ headers, rawBody: kept.body, auth: current }).ok;
    const auth: BodyAuth = provenAgain ? current : { mode: "arrival" };
    const salt = opts.freshKey ? randomUUID() : undefined;
    const opened: OpenDelivery = { kind: "open", provider, target, auth, maxBodyBytes: providers[provider].maxBodyBytes };
    const outcome = await this.deps.intake.receive(opened, { provider, webhookId, headers, sourceIp: kept.sourceIp, rawBody: kept.body, keySalt: salt });

    const ids = deliveryIdsOf(outcome);
    const proof = provenAgain ? "verified_again" : "verified_on_arrival";
    await store.tx(async (tx) => {
      await insertRedeliveries(
        tx,
        ids.map((id) => ({
          delivery_id: id,
          redelivery_of: deliveryId,
          webhook_id: webhookId,
          proof,
          fresh_key: salt ?? null,
          requested_by: p.userId,
          created_at: now,
        })),
      );
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "webhook.delivery.redeliver",
        targetType: "webhook",
        targetId: webhookId,
        orgId: team.org_id,
        teamId: team.id,
        detail: { delivery_id: deliveryId, delivery_ids: ids, proof, fresh_key: salt !== undefined },
      });
    });
    await this.deps.keptRequests.link(kept.id, ids);
    return { outcome, redelivery_of: deliveryId, delivery_ids: ids, proof, fresh_key: salt !== undefined };
  }
}
