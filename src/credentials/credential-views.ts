import type { ApiKeyRow, WorkflowSecretRow } from "../store/credentials.js";
import { iso } from "../core/iso.js";

/** Metadata only: the sealed value never leaves the store module's row. */
export function apiKeyView(k: ApiKeyRow) {
  return { id: k.id, name: k.name, provider: k.provider, last4: k.last4, fingerprint: k.fingerprint, created_at: iso(k.created_at) };
}

export function secretView(s: WorkflowSecretRow) {
  return { id: s.id, name: s.name, last4: s.last4, fingerprint: s.fingerprint, created_at: iso(s.created_at) };
}

/** Shorter values would be all but spelled out by their last four characters. */
export const MIN_LAST4_LENGTH = 16;
export const visibleLast4 = (value: string) => (value.length >= MIN_LAST4_LENGTH ? value.slice(-4) : "");
