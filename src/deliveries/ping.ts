import { createHmac, randomUUID } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import type { DeliveryTargets } from "../intake/delivery-targets.js";
import { providers } from "../forges/providers.js";
import type { Principal } from "../tenancy/access.js";
import type { ProviderName } from "../webhooks/webhook-config.js";
import { deliveryUrl } from "../webhooks/webhook-views.js";
import type { DeliveryLog } from "./delivery-log.js";
import { pingHint } from "./ping-hint.js";
import type { Posted, UnreachableCause } from "./post-delivery.js";

/** A signed request POSTed to a delivery URL over the network, and what came back. */
export type SendDelivery = (url: string, headers: Record<string, string>, body: Buffer) => Promise<Posted>;

export interface PingDeps {
  clock: Clock;
  log: DeliveryLog;
  targets: DeliveryTargets;
  /** The network: the request goes out and comes back in through whatever forges pass. */
  send: SendDelivery;
  /** SERVICE_BASE_URL: the address forges call. Configuration, never a caller's input. */
  baseUrl: string;
}

export interface PingResult {
  event: string;
  /** The delivery URL it was sent to, the one a forge calls. */
  url: string;
  /** This service answered 2xx, not invalid, with a delivery it recorded. */
  reached: boolean;
  delivery_id: string | null;
  /** The HTTP answer; null when none came. `body` is {} and `text` its start when it was not JSON. */
  answer: { status: number; body: Record<string, unknown>; text: string | null } | null;
  /** Why no answer came. */
  unreachable: { cause: UnreachableCause; message: string } | null;
  /** What to check, when something is off. */
  hint: string | null;
}

/**
 * A test delivery sent over the network to the webhook's delivery URL (SERVICE_BASE_URL's, the
 * one a forge calls), proven as the forge would prove it, to check a config end to end and
 * whether forges can reach the service at all: GitHub's `ping`, GitLab's and Forgejo's test push
 * (their "Test" buttons send a push), a generic `X-Service-Event: ping`. It is recorded like any
 * delivery (filtered: nothing launches) and counts against the webhook's bucket and quota.
 */
export class Pings {
  constructor(private readonly deps: PingDeps) {}

  async ping(p: Principal, teamId: string, webhookId: string, opts: { token?: string } = {}): Promise<PingResult> {
    await this.deps.log.teamWebhook(p, teamId, webhookId, "admin");
    const target = await this.deps.targets.get(webhookId);
    if (!target) throw notFound("webhook");
    const { config } = target;
    const provider = config.provider;
    const url = deliveryUrl(this.deps.baseUrl, provider, webhookId);
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
    const posted = await this.deps.send(url, headers, body);
    const answered = posted.kind === "answered" ? (posted.json ?? {}) : {};
    const deliveryId = typeof answered.delivery_id === "string" ? answered.delivery_id : null;
    const listed = deliveryId !== null && (await this.deps.log.recorded(webhookId, deliveryId));
    return {
      event: shape.event,
      url,
      reached: posted.kind === "answered" && posted.status >= 200 && posted.status < 300 && answered.status !== "invalid" && listed,
      delivery_id: listed ? deliveryId : null,
      answer: posted.kind === "answered" ? { status: posted.status, body: answered, text: posted.text } : null,
      unreachable: posted.kind === "unreachable" ? { cause: posted.cause, message: posted.message } : null,
      hint: pingHint({ url, posted, listed }),
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
