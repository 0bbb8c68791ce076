import type { ApiKeyRow } from "../store/credentials.js";
import { sharesWith, type CredentialAudience } from "../tenancy/views.js";

/** Whether a team may use a key: `not_shared` is an org key its org's audience does not reach. */
export type KeyAccess = { kind: "ok"; key: ApiKeyRow } | { kind: "missing" } | { kind: "not_shared" };

/** A team may use its own keys and the org-shared keys its org's credential audience grants it. */
export function keyAccess(key: ApiKeyRow | undefined, team: { id: string; org_id: string }, audience: CredentialAudience): KeyAccess {
  if (!key || key.org_id !== team.org_id) return { kind: "missing" };
  if (key.team_id !== null) return key.team_id === team.id ? { kind: "ok", key } : { kind: "missing" };
  return sharesWith(audience, team.id) ? { kind: "ok", key } : { kind: "not_shared" };
}
