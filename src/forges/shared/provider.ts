import type { ProviderName, SignMode } from "../../webhooks/webhook-config.js";
import type { TokenVerifier } from "./check-delivery-token.js";
import type { DeliveryEvent } from "./delivery-event.js";
import type { HeaderBag } from "./headers.js";
import type { TestDelivery, TestTarget } from "./test-delivery.js";
import type { VerifiedPayload } from "./verified-payload.js";

/** Header names each provider reads, in precedence order (SPEC-NOTES §1). */
export interface ProviderHeaders {
  event: readonly string[];
  delivery: readonly string[];
  /** Token-mode headers; empty where the provider has no token mode. */
  token: readonly string[];
  /** Signature headers; empty where the provider has no hmac mode. */
  signature: readonly string[];
}

/**
 * What proves a body: the unsealed HMAC secret, or the token check owned by the webhooks module.
 * `previousSecret` is the secret a rotation replaced, present only inside its overlap: it is
 * tried only when `secret` fails.
 */
export type BodyAuth =
  | { mode: "hmac"; secret: string; previousSecret?: string }
  | { mode: "token"; verifyToken: TokenVerifier }
  /** Standard Webhooks: the secret, and the time its timestamp must be near. */
  | { mode: "standard"; secret: string; previousSecret?: string; now: number }
  /** A kept request sent again whose proof no current secret gives: it was proven when it arrived (docs/deliveries.md). */
  | { mode: "arrival" };

export interface VerifyInput {
  headers: HeaderBag;
  rawBody: Buffer;
  auth: BodyAuth;
  /** SHA-256 hex of rawBody when the caller has it already (it is the delivery row's hash). */
  rawSha256?: string;
}

/** A failure is recorded as an `invalid` delivery; verify never throws. */
export type VerifyResult =
  /** `byPrevious`: the signature matched the previous secret of a rotation's overlap (a token is proven before the body). */
  | { ok: true; payload: VerifiedPayload; byPrevious: boolean }
  /** `bad_signature`: the proof failed or is missing; `bad_payload`: proven or not, the body is unreadable. */
  | { ok: false; code: "bad_signature" | "bad_payload"; reason: string };

export type ParseResult = { ok: true; event: DeliveryEvent } | { ok: false; reason: string };

/** GitHub and GitLab both cap webhook payloads at 25 MB; nothing larger is a real forge delivery. */
export const FORGE_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** A provider known by its name: a forge's deliveries carry the spec's name for it. */
export type NamedProvider<N extends ProviderName> = Provider & { readonly name: N };

export interface Provider {
  readonly name: ProviderName;
  readonly headers: ProviderHeaders;
  /** Sign modes this provider can prove; the first is its default. */
  readonly signModes: readonly SignMode[];
  /** The largest body this provider's deliveries may carry; a longer one is refused unread (413). */
  readonly maxBodyBytes: number;
  verify(input: VerifyInput): VerifyResult;
  /** JSON.parse happens here, on a verified payload only. */
  parse(payload: VerifiedPayload, headers: HeaderBag): ParseResult;
  /** The delivery the forge's own test sends (GitHub's `ping`, GitLab's and Forgejo's test push). */
  testDelivery(target: TestTarget): TestDelivery;
  /** A body's HMAC-SHA256 hex digest as the forge writes it in its signature header; absent without hmac mode. */
  signatureValue?(hex: string): string;
}
