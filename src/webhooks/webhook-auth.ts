import type { Sealer } from "../core/sealer.js";
import type { Store } from "../store/store.js";
import { loadWebhook } from "./webhook-record.js";
import { openWebhookSecret, tokenMatches } from "./webhook-token.js";

/** What the intake asks of a webhook's token: does a presented one verify, and what is the HMAC key. */
export class WebhookAuth {
  constructor(private readonly deps: { store: Store; sealer: Sealer }) {}

  /** False for an unknown webhook as for a wrong token: the caller answers 401 either way. */
  async verifyToken(webhookId: string, presented: string): Promise<boolean> {
    const found = await loadWebhook(this.deps.store.db, webhookId);
    return found !== undefined && tokenMatches(found.secrets, presented);
  }

  /**
   * The token plaintext, the HMAC key of hmac configs; undefined for an unknown webhook or a
   * token-only one. Throws SealError when the sealed value was tampered with or moved.
   */
  async openHmacSecret(webhookId: string): Promise<string | undefined> {
    const found = await loadWebhook(this.deps.store.db, webhookId);
    return found && openWebhookSecret(this.deps.sealer, webhookId, found.secrets);
  }
}
