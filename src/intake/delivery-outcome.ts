import type { LaunchDenial } from "../admission/decide-launch.js";
import type { ProviderName } from "../webhooks/webhook-config.js";
import type { DeliveryTarget } from "./delivery-targets.js";
import type { HeaderBag } from "../forges/shared/headers.js";
import type { ParkResult } from "./parked-launches.js";
import type { BodyAuth } from "../forges/shared/provider.js";

/** What is known of a delivery before its body is read. */
export interface DeliveryHead {
  provider: string;
  webhookId: string;
  headers: HeaderBag;
  sourceIp: string | null;
}

export interface DeliveryRequest extends DeliveryHead {
  /**
   * Handed over: the intake replaces it with an empty buffer once the body
   * is hashed, proven and parsed, so that the bytes die young. Kept through the store's round
   * trip, bodies outlive two scavenges, and their memory (outside V8's heap) piles up until a
   * full collection: 60 MB and more of peak RSS under load.
   */
  rawBody: Buffer;
  /** A redelivery's fresh idempotency key: launches are keyed apart from the original's by it. */
  keySalt?: string;
}

/** A delivery the URL and headers let through: its body may now be read, up to `maxBodyBytes`. */
export interface OpenDelivery {
  kind: "open";
  provider: ProviderName;
  target: DeliveryTarget;
  /** What proves the body; undefined for an hmac webhook without a secret (rotate it). */
  auth: BodyAuth | undefined;
  maxBodyBytes: number;
}

/** The intake's `open`: refused before the body is read, or open. */
export type DeliveryOpening = { kind: "refused"; outcome: DeliveryOutcome } | OpenDelivery;

/** One bot's result on a launching delivery. */
export type LaunchResultOf =
  | { kind: "launched"; deliveryId: string; runId: string; botId: string }
  | { kind: "duplicate"; deliveryId: string; runId: string | null; originalDeliveryId: string; botId: string }
  | { kind: "denied"; deliveryId: string; botId: string; denial: LaunchDenial }
  /** `overlap` found a run in flight as the launch was written (a concurrent delivery launched it). */
  | { kind: "filtered"; deliveryId: string; botId: string; reason: string };

/** Every outcome of a delivery; each variant names the HTTP status the route sends. */
export type DeliveryOutcome =
  /** 401 `invalid webhook`: unknown id, unknown provider or a provider mismatch. */
  | { kind: "unknown_webhook" }
  /** 401 `invalid webhook token` (token mode); recorded as invalid. */
  | { kind: "bad_token"; deliveryId: string }
  /** 410 `webhook disabled`. */
  | { kind: "disabled" }
  /** 429 with Retry-After: the webhook's bucket is empty. */
  | { kind: "rate_limited"; deliveryId: string; retryAfterSeconds: number }
  /** 429 `monthly call quota exceeded`. */
  | { kind: "quota_exceeded"; deliveryId: string }
  /** 403 `org suspended`. */
  | { kind: "org_suspended" }
  /** `httpStatus`: 401 bad signature, 400 generic body errors, 200 other forge payload problems. */
  | { kind: "invalid"; deliveryId: string; reason: string; httpStatus: 200 | 400 | 401 }
  /** 200: filtered or ignored, with the reason on the row; `stopped` for a closed pull request. */
  | { kind: "filtered"; deliveryId: string; reason: string; stopped?: number }
  /** 200: a launch_error row naming the forge's failure; nothing launched, nothing posted (review rule 7). */
  | { kind: "forge_error"; deliveryId: string; reason: string }
  /** 200 when anything launched or was a duplicate; otherwise the first denial's envelope. */
  | { kind: "launch"; results: LaunchResultOf[] }
  /** 202 `deferred` when any bot's launch was parked; otherwise 200 (an older push, or a replay). */
  | { kind: "deferred"; results: ParkResult[] }
  /** 202: the card on the team's board (board_mode coordinate); the dispatcher launches it. */
  | { kind: "carded"; deliveryId: string; cardId: string; created: boolean };
