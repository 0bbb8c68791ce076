import type { Sealed } from "../core/sealer.js";
import type { CredentialTier } from "../metering/metering.js";
import type { ApiKeyRow, WorkflowSecretRow } from "../store/credentials.js";
import { sharesWith, type CredentialAudience } from "../tenancy/views.js";
import { keyAccess } from "./key-access.js";
import type { PlatformKey } from "./platform-keys.js";

/** The launching webhook's overrides; `deleted` when the run names a webhook that is gone. */
export type WebhookOverrides = { id: string; keyOverrides: Record<string, string>; secretOverrides: Record<string, string> } | { id: string; deleted: true };

/** Everything one attempt's credentials are decided from, loaded at spawn. */
export interface CredentialFacts {
  team: { id: string; org_id: string };
  audience: CredentialAudience;
  /** null for a run no webhook launched (`POST /api/runs`, resumes of such runs). */
  webhook: WebhookOverrides | null;
  /** Providers the bot declares it calls (bots file `providers`). */
  providers: readonly string[];
  teamKeys: readonly ApiKeyRow[];
  /** The org-shared keys (no owning team). */
  orgKeys: readonly ApiKeyRow[];
  teamSecrets: readonly WorkflowSecretRow[];
  platformKeys: readonly PlatformKey[];
}

/** Where a handed key came from; the tier is what the ledger charges. */
export type KeySource = "webhook" | "team" | "pool" | "platform";

/** A handed value stays sealed (bound to its row's id) until the runner opens it at spawn. */
export type CredentialValue = { sealed: Sealed; context: string } | { plain: string };

export interface HandedKey {
  provider: string;
  source: KeySource;
  tier: CredentialTier;
  id: string;
  name: string;
  last4: string;
  fingerprint: string;
  value: CredentialValue;
}

export interface HandedSecret {
  /** The name the webhook gives it, hence its variable `BOT_SECRET_<name>`. */
  name: string;
  id: string;
  /** The secret's own name in the team's store. */
  storedName: string;
  last4: string;
  fingerprint: string;
  value: CredentialValue;
}

export type CredentialPlan = { kind: "handed"; keys: HandedKey[]; secrets: HandedSecret[] } | { kind: "unavailable"; cause: string };

const sealedOf = (row: ApiKeyRow | WorkflowSecretRow): CredentialValue => ({ sealed: { keyId: row.sealed_key_id, blob: row.sealed_blob }, context: row.id });

/**
 * Per provider the bot may call (its declared ones and those the webhook names), the key an
 * attempt is handed: the webhook's `key_overrides` entry, else the team's own key, else an
 * org-shared key the audience grants the team, else the platform's, else none. A named key or
 * secret that is gone fails the attempt: never a silent fall back to a broader key.
 */
export function resolveCredentials(f: CredentialFacts): CredentialPlan {
  const hook = f.webhook;
  if (hook && "deleted" in hook) {
    return { kind: "unavailable", cause: `webhook ${hook.id} that launched the run no longer exists; its key and secret overrides cannot be resolved` };
  }
  const overrides = hook?.keyOverrides ?? {};
  const providers = [...new Set([...f.providers, ...Object.keys(overrides)])].sort();
  const keys: HandedKey[] = [];
  for (const provider of providers) {
    const named = overrides[provider];
    const key = named === undefined ? defaultKey(f, provider) : namedKey(f, provider, named, hook!.id);
    if (key && "cause" in key) return key;
    if (key) keys.push(key);
  }
  const secrets: HandedSecret[] = [];
  for (const [name, id] of Object.entries(hook?.secretOverrides ?? {})) {
    const row = f.teamSecrets.find((s) => s.id === id && s.team_id === f.team.id);
    if (!row) return unavailable(`secret ${id} named ${name} by webhook ${hook!.id} no longer exists for this team`);
    secrets.push({ name, id, storedName: row.name, last4: row.last4, fingerprint: row.fingerprint, value: sealedOf(row) });
  }
  return { kind: "handed", keys, secrets };
}

type Unavailable = Extract<CredentialPlan, { kind: "unavailable" }>;
const unavailable = (cause: string): Unavailable => ({ kind: "unavailable", cause });

/** The key the webhook names for the provider: it must still exist, be the team's to use, and be the provider's. */
function namedKey(f: CredentialFacts, provider: string, named: string, hookId: string): HandedKey | Unavailable {
  const access = keyAccess(
    [...f.teamKeys, ...f.orgKeys].find((k) => k.id === named),
    f.team,
    f.audience,
  );
  if (access.kind === "missing") return unavailable(`key ${named} named for ${provider} by webhook ${hookId} no longer exists for this team`);
  if (access.kind === "not_shared") return unavailable(`org key ${named} named for ${provider} by webhook ${hookId} is no longer shared with this team`);
  if (access.key.provider !== provider) return unavailable(`key ${named} named for ${provider} by webhook ${hookId} is a ${access.key.provider} key`);
  return stored(provider, "webhook", access.key);
}

/** Without a named key: the team's own, else the org's pool when the audience grants it, else the platform's, else none. */
function defaultKey(f: CredentialFacts, provider: string): HandedKey | undefined {
  const own = newest(f.teamKeys, provider);
  if (own) return stored(provider, "team", own);
  const pooled = sharesWith(f.audience, f.team.id) ? newest(f.orgKeys, provider) : undefined;
  if (pooled) return stored(provider, "pool", pooled);
  const platform = f.platformKeys.find((k) => k.provider === provider);
  return platform ? { ...platform, source: "platform", tier: "platform", value: { plain: platform.value } } : undefined;
}

function stored(provider: string, source: KeySource, row: ApiKeyRow): HandedKey {
  const tier: CredentialTier = row.team_id === null ? "pool" : "team";
  return { provider, source, tier, id: row.id, name: row.name, last4: row.last4, fingerprint: row.fingerprint, value: sealedOf(row) };
}

/** The most recently added key of the provider: adding a key and then deleting the old one rotates it. */
function newest(keys: readonly ApiKeyRow[], provider: string): ApiKeyRow | undefined {
  let best: ApiKeyRow | undefined;
  for (const k of keys) {
    if (k.provider !== provider) continue;
    if (!best || k.created_at > best.created_at || (k.created_at === best.created_at && k.id > best.id)) best = k;
  }
  return best;
}
