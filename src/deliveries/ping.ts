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

/** What a provider's own test delivery looks like: its event header value and its body. */
interface PingShape {
  event: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
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
    const shape = pingShape(provider, url, webhookId);
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
  const name = providers[provider].headers.signature[0]!.toLowerCase();
  // GitHub prefixes the digest; Forgejo and Gitea send it bare.
  return { [name]: provider === "forge_c" ? hex : `sha256=${hex}` };
}

const ZERO = "0".repeat(40);

function pingShape(provider: ProviderName, url: string, webhookId: string): PingShape {
  const delivery = randomUUID();
  const repo = { id: 1, name: "ping", full_name: "service/ping", html_url: "https://example.invalid/service/ping", default_branch: "main" };
  switch (provider) {
    // https://docs.github.com/en/webhooks/webhook-events-and-payloads#ping
    case "forge_b":
      return {
        event: "ping",
        headers: { "x-github-event": "ping", "x-github-delivery": delivery, "x-github-hook-id": webhookId },
        body: {
          zen: "Keep it logically awesome.",
          hook_id: 0,
          hook: { type: "Repository", name: "web", active: true, events: ["*"], config: { content_type: "json", insecure_ssl: "0", url } },
          repository: repo,
          sender: { login: "service-ping", type: "User" },
        },
      };
    // GitLab's "Test" sends a push event sample.
    case "forge_a":
      return {
        event: "Push Hook",
        headers: { "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": delivery },
        body: {
          object_kind: "push",
          event_name: "push",
          before: ZERO,
          after: ZERO,
          ref: "refs/heads/main",
          user_username: "service-ping",
          project_id: 1,
          project: { id: 1, name: "ping", path_with_namespace: "service/ping", web_url: repo.html_url, default_branch: "main" },
          commits: [],
          total_commits_count: 0,
          repository: { name: "ping", homepage: repo.html_url },
        },
      };
    // Forgejo's and Gitea's "Test Delivery" sends a push event.
    case "forge_c":
      return {
        event: "push",
        headers: { "x-forgejo-event": "push", "x-gitea-event": "push", "x-forgejo-delivery": delivery, "x-gitea-delivery": delivery },
        body: {
          ref: "refs/heads/main",
          before: ZERO,
          after: ZERO,
          commits: [],
          total_commits: 0,
          repository: repo,
          pusher: { login: "service-ping" },
          sender: { login: "service-ping" },
        },
      };
    case "generic":
      return { event: "ping", headers: { "x-service-event": "ping" }, body: { ping: true } };
  }
}
