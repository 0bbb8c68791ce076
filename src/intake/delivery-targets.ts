import { connectionBotLogins } from "../connections/connection-identity.js";
import { BoundedMap } from "../core/bounded-map.js";
import type { Clock } from "../core/clock.js";
import type { Change, ChangeFeed } from "../core/change-feed.js";
import type { Sealer } from "../core/sealer.js";
import { loadDeliveryTarget, type DeliveryOwner } from "../store/delivery-path/load-delivery-target.js";
import type { Store } from "../store/store.js";
import type { StoredWebhookSecrets, WebhookConfig } from "../webhooks/webhook-config.js";
import { configFromRow, secretsFromRow } from "../webhooks/webhook-record.js";
import type { GateSettings } from "./pipeline/delivery-context.js";
import { type BoardMode, effectiveBoardMode } from "../tenancy/board-mode.js";
import { acceptedPrevious, openWebhookSecret } from "../webhooks/webhook-token.js";

/** What a delivery needs of its webhook before any write: read and decoded once. */
export interface DeliveryTarget {
  config: WebhookConfig;
  secrets: StoredWebhookSecrets;
  owner: DeliveryOwner;
  /** The HMAC key of an hmac config, opened once; undefined when there is none. */
  hmacSecret: string | undefined;
  /**
   * The previous secret's HMAC key, opened once when its window was open at load; a delivery
   * still checks the window at its own time ({@link acceptedPrevious}).
   */
  previousHmacSecret: string | undefined;
  /** The bot identity set: the service's logins, and a provisioned config's connection's (see connectionBotLogins). */
  botLogins: readonly string[];
  /** A provisioned repository's CI gate, when it names one. */
  gate: GateSettings | undefined;
}

/** Enough for every webhook of a large deployment; past it the oldest entries go first. */
const MAX_ENTRIES = 10_000;

/**
 * Delivery targets kept in memory for `ttlMs`. This process's own writes drop them at once
 * (through the change feed); another replica's writes are seen within `ttlMs`. Buckets,
 * monthly counters and idempotency are never cached: they stay exact in the store. A TTL
 * of 0 reads the store on every delivery.
 */
export class DeliveryTargets {
  private readonly entries = new BoundedMap<string, { target: DeliveryTarget; expires: number }>(MAX_ENTRIES);

  constructor(
    private readonly deps: {
      store: Store;
      sealer: Sealer;
      clock: Clock;
      changes: ChangeFeed;
      ttlMs: number;
      /** The service's own forge bot login(s) (SERVICE_FORGE_BOT_LOGIN). */
      botLogins: readonly string[];
    },
  ) {
    deps.changes.subscribe((change) => this.forget(change));
  }

  async get(webhookId: string): Promise<DeliveryTarget | undefined> {
    const now = this.deps.clock.now();
    const hit = this.entries.get(webhookId);
    if (hit && hit.expires > now) return hit.target;
    const loaded = await loadDeliveryTarget(this.deps.store.db, webhookId);
    if (!loaded) {
      this.entries.delete(webhookId);
      return undefined;
    }
    const stored = configFromRow(loaded.webhook);
    const config: WebhookConfig = { ...stored, board_mode: effectiveBoardMode(stored.board_mode, loaded.owner.team.boardMode as BoardMode) };
    const secrets = secretsFromRow(loaded.webhook);
    const signs = config.sign_mode !== "token";
    const hmacSecret = signs ? openWebhookSecret(this.deps.sealer, config.id, secrets) : undefined;
    const previous = signs ? acceptedPrevious(secrets, now) : undefined;
    const previousHmacSecret = previous && openWebhookSecret(this.deps.sealer, config.id, previous);
    const { owner } = loaded;
    const connectionLogins = connectionBotLogins(loaded.connection);
    const botLogins = connectionLogins.length > 0 ? [...this.deps.botLogins, ...connectionLogins] : this.deps.botLogins;
    const target: DeliveryTarget = { config, secrets, owner, hmacSecret, previousHmacSecret, botLogins, gate: loaded.gate };
    if (this.deps.ttlMs > 0) {
      // Read again, it moves to the back of the eviction order.
      this.entries.delete(webhookId);
      this.entries.set(webhookId, { target, expires: now + this.deps.ttlMs });
    }
    return target;
  }

  private forget(change: Change): void {
    if (change.kind === "webhook") {
      this.entries.delete(change.id);
      return;
    }
    this.entries.deleteWhere((entry) => entry.target.owner.orgId === change.id);
  }
}
