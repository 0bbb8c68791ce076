import { createHmac, randomUUID } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import type { DeliveryTargets } from "../intake/delivery-targets.js";
import { providers } from "../forges/providers.js";
import type { Principal } from "../tenancy/access.js";
import type { ProviderName } from "../webhooks/webhook-config.js";
import type { DeliveryLog } from "./delivery-log.js";

/** A request handed to the delivery endpoint's receiver, and its answer (null when none came). */
export type SendDelivery = (req: { provider: ProviderName; webhookId: string; headers: Record<string, string>; body: Buffer }) => Promise<{
  status: number;
  body: unknown;
} | null>;

export interface PingDeps {
  clock: Clock;
  log: DeliveryLog;
  targets: DeliveryTargets;
  /** The delivery endpoint itself (the route's and the fast path's receiver). */
  send: SendDelivery;
  /** The address forges call, for the ping's hook description. */
  baseUrl: string;
}

/**
 * A test delivery sent through the delivery endpoint, proven as the forge would prove it, to
 * check a config end to end: GitHub's `ping`, GitLab's and Forgejo's test push (their "Test"
 * buttons send a push), a generic `X-Service-Event: ping`. It is recorded like any delivery
 * (filtered: nothing launches) and counts against the webhook's bucket and quota.
 */
export class Pings {
  constructor(private readonly deps: PingDeps) {}

  async ping(p: Principal, teamId: string, webhookId: string, opts: { token?: string } = {}) {
    await this.deps.log.teamWebhook(p, teamId, webhookId, "admin");
    const target = await this.deps.targets.get(webhookId);
    if (!target) throw notFound("webhook");
    const { config } = target;
    const provider = config.provider;
    const url = `${this.deps.baseUrl}/api/webhooks/${provider}/${webhookId}`;
    const shape = providers[provider].testDelivery({ url, hookId: webhookId, deliveryId: randomUUID() });
    const body = Buffer.from(JSON.stringify(shape.body));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "content-length": String(body.length),
      "user-agent": "service-ping",
      ...shape.headers,
    };
    if (config.sign_mode === "token") {
      // Only the token's salted hash is stored: the caller gives the token the ping carries.
      if (!opts.token) throw invalid("token", "this webhook proves deliveries with its token, which the service keeps only as a hash: give it as token");
      headers[providers[provider].headers.token[0]!.toLowerCase()] = opts.token;
    } else {
      const secret = target.hmacSecret;
      if (secret === undefined) throw conflict("this webhook has no signing secret; rotate it");
      Object.assign(headers, signatureHeaders(provider, config.sign_mode, secret, body, this.deps.clock.now()));
    }
    const answer = await this.deps.send({ provider, webhookId, headers, body });
    if (!answer) throw new Error("the delivery endpoint gave no answer to a ping");
    const answered = (answer.body ?? {}) as Record<string, unknown>;
    return {
      event: shape.event,
      reached: answer.status < 300 && answered.status !== "invalid",
      delivery_id: typeof answered.delivery_id === "string" ? answered.delivery_id : null,
      answer,
    };
  }
}

/** The signature headers of a body, as each provider's forge signs it. */
function signatureHeaders(provider: ProviderName, mode: "hmac" | "standard", secret: string, body: Buffer, now: number): Record<string, string> {
  if (mode === "standard") {
    const id = `msg_${randomUUID()}`;
    const ts = String(Math.floor(now / 1000));
    const sig = createHmac("sha256", secret).update(`${id}.${ts}.`).update(body).digest("base64");
    return { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": `v1,${sig}` };
  }
  const hex = createHmac("sha256", secret).update(body).digest("hex");
  const signing = providers[provider];
  const name = signing.headers.signature[0]!.toLowerCase();
  return { [name]: signing.signatureValue?.(hex) ?? hex };
}
