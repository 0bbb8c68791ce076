import type { Clock } from "../core/clock.js";
import type { Sealer } from "../core/sealer.js";
import { last4 } from "../core/secrets.js";
import { nulField, nulMessage } from "../core/nul-field.js";
import { recordAttemptCredentials } from "../store/attempt-credentials.js";
import { insertTokenToRevoke } from "../store/forge-tokens-to-revoke.js";
import { listOrgApiKeys, listTeamApiKeys, listWorkflowSecrets } from "../store/credentials.js";
import type { RunRow } from "../store/runs.js";
import type { Store } from "../store/store.js";
import { findOrg, findTeam } from "../store/tenancy.js";
import { findWebhook } from "../store/webhooks.js";
import { parseAudience } from "../tenancy/views.js";
import { keyEnvName, secretEnvName } from "./credential-names.js";
import type { PlatformKey } from "./platform-keys.js";
import { resolveCredentials, type CredentialFacts, type CredentialPlan, type CredentialValue } from "./resolve-credentials.js";
import { tokenToRevokeRow } from "./tokens-to-revoke.js";

/** Repository permissions a bot's forge token asks for (GitHub's names: contents, pull_requests …). */
export type ForgePermissions = Readonly<Record<string, "read" | "write">>;

/** The forge credential for a run's connected repository, or why it cannot be had. */
export type ForgeConnectionHandout =
  | {
      kind: "token";
      token: string;
      connectionId: string;
      name: string;
      fingerprint: string;
      /** Set when the token was minted for this attempt alone: revoked once the attempt ends. */
      minted?: { repo: string; expiresAt: number };
    }
  | { kind: "unavailable"; cause: string };

/** Where BOT_FORGE_TOKEN comes from (connections/run-forge-tokens.ts); undefined: the run has no connected repository. */
export interface RunForgeTokenSource {
  tokenFor(run: RunRow, permissions: ForgePermissions | undefined): Promise<ForgeConnectionHandout | undefined>;
}

/** The variable a run's forge credential is handed in. */
export const FORGE_TOKEN_ENV = "BOT_FORGE_TOKEN";

/** What a bot is handed at spawn: its credential variables, or why the attempt cannot have them. */
export type Handover = { kind: "handed"; env: Record<string, string> } | { kind: "unavailable"; cause: string };

export interface RunCredentialsDeps {
  store: Store;
  sealer: Sealer;
  clock: Clock;
  platformKeys: readonly PlatformKey[];
  /** BOT_FORGE_TOKEN for runs on a connected repository; absent, none is handed. */
  forgeTokens?: RunForgeTokenSource;
}

/**
 * The path from the store to a bot: at each attempt's spawn, resolves its keys and secrets from
 * the run's webhook, team, org and the platform, records which were handed and opens their values.
 */
export class RunCredentials {
  constructor(private readonly deps: RunCredentialsDeps) {}

  async handOver(run: RunRow, attempt: number, providers: readonly string[], forgePermissions?: ForgePermissions): Promise<Handover> {
    const facts = await this.facts(run, providers);
    if (!facts) return { kind: "unavailable", cause: `team ${run.team_id} of the run no longer exists` };
    const plan = resolveCredentials(facts);
    if (plan.kind === "unavailable") return plan;
    const clash = sharedVariable(plan.keys.map((k) => k.provider));
    if (clash) return { kind: "unavailable", cause: `providers ${clash.join(" and ")} would both be handed in ${keyEnvName(clash[0]!)}` };
    let env: Record<string, string>;
    try {
      env = this.open(plan);
    } catch (err) {
      return { kind: "unavailable", cause: `a stored credential could not be opened: ${err instanceof Error ? err.message : String(err)}` };
    }
    // Stored before NULs were refused: spawn would fail, quoting the value in its error.
    const nul = nulField(env);
    if (nul) return { kind: "unavailable", cause: `the value for ${nulMessage(nul)}` };
    const forge = await this.deps.forgeTokens?.tokenFor(run, forgePermissions);
    if (forge?.kind === "unavailable") return forge;
    if (forge) env[FORGE_TOKEN_ENV] = forge.token;
    const records = this.records(run.id, attempt, plan);
    if (forge) {
      records.push({
        run_id: run.id,
        attempt,
        created_at: this.deps.clock.now(),
        kind: "secret",
        name: FORGE_TOKEN_ENV,
        credential_id: forge.connectionId,
        credential_name: forge.name,
        last4: last4(forge.token),
        fingerprint: forge.fingerprint,
        tier: null,
        source: "connection",
      });
    }
    const minted = forge?.minted;
    const revokeLater = minted && {
      token: forge.token,
      teamId: run.team_id,
      connectionId: forge.connectionId,
      repo: minted.repo,
      forgeTokenId: null,
      expiresAt: minted.expiresAt,
      notBefore: this.deps.clock.now(),
    };
    // One write: a token minted for the attempt is never seen unheld, so it is not revoked before the attempt ends.
    await this.deps.store.tx(async (tx) => {
      await recordAttemptCredentials(tx, run.id, attempt, records);
      if (revokeLater) await insertTokenToRevoke(tx, tokenToRevokeRow(this.deps.sealer, revokeLater, this.deps.clock.now()));
    });
    return { kind: "handed", env };
  }

  private async facts(run: RunRow, providers: readonly string[]): Promise<CredentialFacts | undefined> {
    const db = this.deps.store.db;
    const [team, org, hook, teamKeys, orgKeys, teamSecrets] = await Promise.all([
      findTeam(db, run.team_id),
      findOrg(db, run.org_id),
      run.webhook_id === null ? undefined : findWebhook(db, run.webhook_id),
      listTeamApiKeys(db, run.team_id),
      listOrgApiKeys(db, run.org_id),
      listWorkflowSecrets(db, run.team_id),
    ]);
    if (!team) return undefined;
    let webhook: CredentialFacts["webhook"] = null;
    if (run.webhook_id !== null) {
      webhook = hook
        ? {
            id: hook.id,
            keyOverrides: JSON.parse(hook.key_overrides) as Record<string, string>,
            secretOverrides: JSON.parse(hook.secret_overrides) as Record<string, string>,
          }
        : { id: run.webhook_id, deleted: true };
    }
    const audience = org ? parseAudience(org.credential_audience) : "none";
    return { team, audience, webhook, providers, teamKeys, orgKeys, teamSecrets, platformKeys: this.deps.platformKeys };
  }

  /** Opens the values only now, at spawn: until here they stay sealed (or in configuration). */
  private open(plan: Extract<CredentialPlan, { kind: "handed" }>): Record<string, string> {
    const value = (v: CredentialValue) => ("plain" in v ? v.plain : this.deps.sealer.open(v.sealed, v.context));
    const env: Record<string, string> = {};
    for (const k of plan.keys) env[keyEnvName(k.provider)] = value(k.value);
    for (const s of plan.secrets) env[secretEnvName(s.name)] = value(s.value);
    return env;
  }

  private records(runId: string, attempt: number, plan: Extract<CredentialPlan, { kind: "handed" }>) {
    const now = this.deps.clock.now();
    const base = { run_id: runId, attempt, created_at: now };
    return [
      ...plan.keys.map((k) => ({
        ...base,
        kind: "key" as const,
        name: k.provider,
        credential_id: k.id,
        credential_name: k.name,
        last4: k.last4,
        fingerprint: k.fingerprint,
        tier: k.tier,
        source: k.source,
      })),
      ...plan.secrets.map((s) => ({
        ...base,
        kind: "secret" as const,
        name: s.name,
        credential_id: s.id,
        credential_name: s.storedName,
        last4: s.last4,
        fingerprint: s.fingerprint,
        tier: null,
        source: "webhook",
      })),
    ];
  }
}

/** Two providers whose keys would land in the same variable (`a-b`, `a_b`): neither may silently replace the other. */
function sharedVariable(providers: string[]): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const p of providers) {
    const other = seen.get(keyEnvName(p));
    if (other !== undefined) return [other, p];
    seen.set(keyEnvName(p), p);
  }
  return undefined;
}
