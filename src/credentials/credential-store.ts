import { checkName } from "../core/names.js";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { Sealer } from "../core/sealer.js";
import { sha256Hex } from "../core/secrets.js";
import * as c from "../store/credentials.js";
import { nulField, nulMessage } from "../core/nul-field.js";
import { isUniqueViolation } from "../store/errors.js";
import type { Db, Store } from "../store/store.js";
import { findOrg, findTeam } from "../store/tenancy.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { parseAudience } from "../tenancy/views.js";
import { webhooksReferencing } from "../store/webhook-refs.js";
import { KEY_PROVIDER_RE, SECRET_NAME_RE } from "./credential-names.js";
import { keyAccess, type KeyAccess } from "./key-access.js";
import { apiKeyView, secretView, visibleLast4 } from "./credential-views.js";

export interface CredentialDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  sealer: Sealer;
  access: Access;
  audit: AuditLog;
}

export interface KeyInput {
  provider: string;
  name: string;
  secret: string;
}

export interface SecretInput {
  name: string;
  value: string;
}

export interface OpenedKey {
  id: string;
  provider: string;
  name: string;
  fingerprint: string;
  secret: string;
}

const MAX_SECRET = 16 * 1024;

/** A workflow secret's value as stored: sealed under the secret's id, with what may be shown of it. */
export function sealedSecretValue(sealer: Sealer, secretId: string, value: string) {
  const sealed = sealer.seal(value, secretId);
  return { sealed_key_id: sealed.keyId, sealed_blob: sealed.blob, last4: visibleLast4(value), fingerprint: sha256Hex(value) };
}

/**
 * Stored API keys (team-owned or org-shared) and workflow secrets, sealed at rest under
 * their own id. Management calls see metadata only; {@link openKey} hands a run the plaintext.
 */
export class CredentialStore {
  constructor(private readonly deps: CredentialDeps) {}

  // Team keys (team admin writes, team member reads)

  async createTeamKey(p: Principal, teamId: string, input: KeyInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    return this.storeKey(p, team.org_id, teamId, input);
  }

  async listTeamKeys(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await c.listTeamApiKeys(this.deps.store.db, teamId)).map(apiKeyView);
  }

  async deleteTeamKey(p: Principal, teamId: string, keyId: string): Promise<void> {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    await this.removeKey(p, team.org_id, keyId, (k) => k.team_id === teamId);
  }

  // Org-shared keys (org admin writes, org member reads)

  async createOrgKey(p: Principal, orgId: string, input: KeyInput) {
    await this.deps.access.org(p, orgId, "admin");
    return this.storeKey(p, orgId, null, input);
  }

  async listOrgKeys(p: Principal, orgId: string) {
    await this.deps.access.org(p, orgId, "member");
    return (await c.listOrgApiKeys(this.deps.store.db, orgId)).map(apiKeyView);
  }

  async deleteOrgKey(p: Principal, orgId: string, keyId: string): Promise<void> {
    await this.deps.access.org(p, orgId, "admin");
    await this.removeKey(p, orgId, keyId, (k) => k.org_id === orgId && k.team_id === null);
  }

  // Workflow secrets (team admin writes, team member reads)

  async createSecret(p: Principal, teamId: string, input: SecretInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (!SECRET_NAME_RE.test(input.name)) throw invalid("name", "name must match [A-Za-z_][A-Za-z0-9_]{0,63}");
    checkValue("value", input.value);
    const id = this.deps.ids.next("sec");
    const row = {
      id,
      org_id: team.org_id,
      team_id: teamId,
      name: input.name,
      ...sealedSecretValue(this.deps.sealer, id, input.value),
      created_by: p.userId,
      created_at: this.deps.clock.now(),
    };
    try {
      await this.deps.store.tx(async (tx) => {
        await c.insertWorkflowSecret(tx, row);
        await this.deps.audit.record(tx, {
          actorId: p.userId,
          action: "secret.create",
          targetType: "secret",
          targetId: id,
          orgId: team.org_id,
          teamId,
          detail: { name: input.name },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`the team already has a secret named ${input.name}`);
      throw err;
    }
    return secretView(row);
  }

  async listSecrets(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await c.listWorkflowSecrets(this.deps.store.db, teamId)).map(secretView);
  }

  async deleteSecret(p: Principal, teamId: string, secretId: string): Promise<void> {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    await this.deps.store.tx(async (tx) => {
      const row = await c.findWorkflowSecret(tx, secretId);
      if (!row || row.team_id !== teamId) throw notFound("secret");
      const users = await webhooksReferencing(tx, team.org_id, "secrets", secretId);
      if (users.length > 0) throw conflict(`secret ${secretId} is used by webhook ${users.join(", ")}`);
      await c.deleteWorkflowSecret(tx, secretId);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "secret.delete",
        targetType: "secret",
        targetId: secretId,
        orgId: team.org_id,
        teamId,
        detail: { name: row.name },
      });
    });
  }

  // Used by other capabilities

  /** Whether the team may use the key: its own key, or an org key shared with it. */
  async resolveKey(db: Db, keyId: string, team: { id: string; org_id: string }): Promise<KeyAccess> {
    const key = await c.findApiKey(db, keyId);
    const org = key?.team_id === null ? await findOrg(db, team.org_id) : undefined;
    return keyAccess(key, team, org ? parseAudience(org.credential_audience) : "none");
  }

  /** The team's own secret, or undefined. */
  async findTeamSecret(db: Db, secretId: string, teamId: string): Promise<c.WorkflowSecretRow | undefined> {
    const row = await c.findWorkflowSecret(db, secretId);
    return row && row.team_id === teamId ? row : undefined;
  }

  /** The plaintext of a key the team may use, for a run; undefined when it may not (or it is gone). */
  async openKey(keyId: string, teamId: string): Promise<OpenedKey | undefined> {
    const db = this.deps.store.db;
    const team = await findTeam(db, teamId);
    if (!team) return undefined;
    const r = await this.resolveKey(db, keyId, team);
    if (r.kind !== "ok") return undefined;
    const secret = this.deps.sealer.open({ keyId: r.key.sealed_key_id, blob: r.key.sealed_blob }, r.key.id);
    return { id: r.key.id, provider: r.key.provider, name: r.key.name, fingerprint: r.key.fingerprint, secret };
  }

  /** The value of one of the team's workflow secrets, for a run. */
  async openSecret(secretId: string, teamId: string): Promise<{ id: string; name: string; value: string } | undefined> {
    const row = await this.findTeamSecret(this.deps.store.db, secretId, teamId);
    if (!row) return undefined;
    return { id: row.id, name: row.name, value: this.deps.sealer.open({ keyId: row.sealed_key_id, blob: row.sealed_blob }, row.id) };
  }

  private async storeKey(p: Principal, orgId: string, teamId: string | null, input: KeyInput) {
    const provider = input.provider.trim().toLowerCase();
    if (!KEY_PROVIDER_RE.test(provider)) throw invalid("provider", "provider must be a name such as anthropic, openai or forge");
    const name = checkName(input.name);
    checkValue("secret", input.secret);
    const id = this.deps.ids.next("key");
    const sealed = this.deps.sealer.seal(input.secret, id);
    const row = {
      id,
      org_id: orgId,
      team_id: teamId,
      provider,
      name,
      sealed_key_id: sealed.keyId,
      sealed_blob: sealed.blob,
      last4: visibleLast4(input.secret),
      fingerprint: sha256Hex(input.secret),
      created_by: p.userId,
      created_at: this.deps.clock.now(),
    };
    await this.deps.store.tx(async (tx) => {
      await c.insertApiKey(tx, row);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "key.create",
        targetType: "key",
        targetId: id,
        orgId,
        teamId,
        detail: { provider, name, scope: teamId ? "team" : "org" },
      });
    });
    return apiKeyView(row);
  }

  /** A key a webhook still names cannot be removed: runs through it would lose their credential. */
  private async removeKey(p: Principal, orgId: string, keyId: string, owns: (k: c.ApiKeyRow) => boolean): Promise<void> {
    await this.deps.store.tx(async (tx) => {
      const key = await c.findApiKey(tx, keyId);
      if (!key || !owns(key)) throw notFound("key");
      const users = await webhooksReferencing(tx, orgId, "keys", keyId);
      if (users.length > 0) throw conflict(`key ${keyId} is used by webhook ${users.join(", ")}`);
      await c.deleteApiKey(tx, keyId);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "key.delete",
        targetType: "key",
        targetId: keyId,
        orgId,
        teamId: key.team_id,
        detail: { provider: key.provider, name: key.name },
      });
    });
  }
}

function checkValue(field: string, value: string): void {
  if (value.length === 0 || value.length > MAX_SECRET) throw invalid(field, `${field} must be 1-${MAX_SECRET} characters`);
  // A value is handed to a bot in its environment, which cannot hold a NUL.
  if (nulField({ [field]: value })) throw invalid(field, nulMessage(field));
}
