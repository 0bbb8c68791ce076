import { isAscii } from "node:buffer";
import { sha256Hex } from "../../core/secrets.js";
import { checkDeliveryToken } from "./check-delivery-token.js";
import { firstHeader, isFormEncoded } from "./headers.js";
import type { ProviderHeaders, VerifyInput, VerifyResult } from "./provider.js";
import { markVerified } from "./verified-payload.js";
import { verifySignature, type SignatureCheck, type SignatureFormat } from "./verify-signature.js";
import { verifyStandardWebhook } from "./verify-standard-webhook.js";

/** How a provider signs bodies in hmac mode. */
export interface BodySigning {
  format: SignatureFormat;
  /**
   * Form-encoded bodies (any auth mode) (`payload=<urlencoded JSON>`): GitHub signs the body as sent
   * (`sign-body`); Gitea and Forgejo sign the JSON before encoding it (`sign-payload`).
   */
  form: "sign-body" | "sign-payload" | "refuse";
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body as text; undefined for bytes that are not UTF-8. ASCII (most payloads) is read as is, twice as fast. */
function decodeUtf8(bytes: Buffer): string | undefined {
  if (isAscii(bytes)) return bytes.toString("latin1");
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `payload` field of a form body, or undefined. */
function formPayload(text: string): string | undefined {
  return new URLSearchParams(text).get("payload") ?? undefined;
}

const badSignature = (reason: string): VerifyResult => ({ ok: false, code: "bad_signature", reason });
const badPayload = (reason: string): VerifyResult => ({ ok: false, code: "bad_payload", reason });
const NO_PAYLOAD = "form body has no payload field";

type Proof = { ok: true; byPrevious: boolean } | { ok: false; reason: string };
const BY_CURRENT: Proof = { ok: true, byPrevious: false };
const BY_PREVIOUS: Proof = { ok: true, byPrevious: true };

/** The current secret's check; the previous secret's (a rotation's overlap) only when the current one fails. */
function firstProof(secret: string, previousSecret: string | undefined, check: (secret: string) => SignatureCheck): Proof {
  const current = check(secret);
  if (current.ok) return BY_CURRENT;
  return previousSecret !== undefined && check(previousSecret).ok ? BY_PREVIOUS : current;
}

/** Token mode: the provider's token header must carry the webhook's token. */
function proveToken(
  headers: ProviderHeaders,
  input: VerifyInput,
  auth: Extract<VerifyInput["auth"], { mode: "token" }>,
  accept: () => VerifyResult,
): VerifyResult {
  if (headers.token.length === 0) return badSignature("token mode is not supported by this provider");
  const check = checkDeliveryToken(input.headers, headers.token, auth.verifyToken);
  return check.ok ? accept() : badSignature(check.reason);
}

/** Decodes the proven body, taking a form body's `payload` field. */
function acceptBody(rawBody: Buffer, form: boolean, rawSha256: string, byPrevious: boolean): VerifyResult {
  const text = decodeUtf8(rawBody);
  if (text === undefined) return badPayload("body is not UTF-8");
  const payload = form ? formPayload(text) : text;
  return payload === undefined ? badPayload(NO_PAYLOAD) : { ok: true, payload: markVerified(payload, rawSha256), byPrevious };
}

/** A form body whose signed bytes are the JSON inside it: the form is decoded first (no JSON parse), then its payload proven. */
function verifyFormPayload(
  input: VerifyInput,
  auth: Extract<VerifyInput["auth"], { mode: "hmac" }>,
  signing: BodySigning,
  found: { name: string; value: string },
  rawSha256: string,
): VerifyResult {
  const { secret, previousSecret } = auth;
  const text = decodeUtf8(input.rawBody);
  const payload = text === undefined ? undefined : formPayload(text);
  if (payload === undefined) return badPayload(NO_PAYLOAD);
  const signed = Buffer.from(payload, "utf8");
  const check = firstProof(secret, previousSecret, (s) => verifySignature(s, signed, found.value, signing.format));
  return check.ok ? { ok: true, payload: markVerified(payload, rawSha256), byPrevious: check.byPrevious } : badSignature(`${found.name}: ${check.reason}`);
}

/**
 * Proves a delivery before anything reads it: the token (token mode) or the HMAC over the
 * exact bytes the forge signed (hmac mode). Returns the payload text to parse.
 */
export function verifyBody(headers: ProviderHeaders, signing: BodySigning, input: VerifyInput): VerifyResult {
  const rawSha256 = input.rawSha256 ?? sha256Hex(input.rawBody);
  const form = isFormEncoded(input.headers);
  if (form && signing.form === "refuse") return badPayload("form-encoded body is not accepted");
  const accept = (byPrevious = false): VerifyResult => acceptBody(input.rawBody, form, rawSha256, byPrevious);

  if (input.auth.mode === "arrival") return accept();

  if (input.auth.mode === "token") return proveToken(headers, input, input.auth, accept);

  if (input.auth.mode === "standard") {
    const { secret, previousSecret, now } = input.auth;
    const check = firstProof(secret, previousSecret, (s) => verifyStandardWebhook(s, input.headers, input.rawBody, now));
    return check.ok ? accept(check.byPrevious) : badSignature(check.reason);
  }

  if (headers.signature.length === 0) return badSignature("hmac mode is not supported by this provider");
  const { secret, previousSecret } = input.auth;
  const found = firstHeader(input.headers, headers.signature);
  if (!found) return badSignature("missing signature");
  if (form && signing.form === "sign-payload") return verifyFormPayload(input, input.auth, signing, found, rawSha256);
  const check = firstProof(secret, previousSecret, (s) => verifySignature(s, input.rawBody, found.value, signing.format));
  return check.ok ? accept(check.byPrevious) : badSignature(`${found.name}: ${check.reason}`);
}
