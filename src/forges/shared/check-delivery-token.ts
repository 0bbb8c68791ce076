import { firstHeader, type HeaderBag } from "./headers.js";

/** Owned by the webhooks module, which holds the salted hash; answers whether `token` matches. */
export type TokenVerifier = (token: string) => boolean;

export type TokenCheck = { ok: true; token: string } | { ok: false; code: "missing_token" | "bad_token"; reason: string };

/**
 * Token mode (forge_a, generic): the forge echoes the plaintext in a header. The first header
 * of `names` present is the one checked; both failures become 401 `invalid webhook token`.
 */
export function checkDeliveryToken(headers: HeaderBag, names: readonly string[], verifyToken: TokenVerifier): TokenCheck {
  const found = firstHeader(headers, names);
  if (!found || found.value.length === 0) return { ok: false, code: "missing_token", reason: "missing token" };
  return verifyToken(found.value) ? { ok: true, token: found.value } : { ok: false, code: "bad_token", reason: `bad token in ${found.name}` };
}
