import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { Periodic } from "../core/periodic.js";
import type { Sealer } from "../core/sealer.js";
import { type CredentialStore, sealedSecretValue } from "../credentials/credential-store.js";
import { tokenToRevokeRow } from "../credentials/tokens-to-revoke.js";
import type { SecurityToken } from "../forges/shared/security-tokens.js";
import type { Metrics } from "../metrics/metrics.js";
import * as c from "../store/credentials.js";
import * as f from "../store/forge-connections.js";
import { insertTokenToRevoke } from "../store/forge-tokens-to-revoke.js";
import type { Db, Store } from "../store/store.js";
import type { TeamRow } from "../store/tenancy.js";
import { findWebhook } from "../store/webhooks.js";
import type { Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { configFromRow } from "../webhooks/webhook-record.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import type { ConnectionService, OpenConnection } from "./connection-service.js";
import { onForge } from "./forge-errors-as-service.js";
import { tryRepoBotLease, withRepoBotLease } from "./repo-bot-lease.js";

/** The secret_overrides name a provisioned webhook hands the token under: runs find it in BOT_SECRET_FORGE_SECURITY_READ. */
export const SECURITY_READ_OVERRIDE = "FORGE_SECURITY_READ";
/** How often every replica looks for tokens due for their successor. */
const RENEW_EVERY_MS = 60_000;
const RENEW_BATCH = 50;
/**
 * A renewed token's predecessor is revoked once no running attempt holds it, and not before this:
 * an attempt that read the secret just before the renewal has recorded what it was handed by then.
 */
const PREDECESSOR_GRACE_MS = 5 * 60_000;

export interface SecurityReadDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  sealer: Sealer;
  credentials: CredentialStore;
  audit: AuditLog;
  webhooks: WebhookService;
  connections: ConnectionService;
  metrics: Metrics;
  log: Logger;
}

/** Where a repository's token is kept: a workflow secret of the team, named after the repo bot. */
const secretNameOf = (repoBotId: string) => `forge_security_read_${repoBotId.replace(/[^A-Za-z0-9_]/g, "_")}`.slice(0, 64);
/** The token's name on the forge: one per provisioned repository, so an orphan of a crashed mint is found. */
const forgeLabelOf = (repoBotId: string) => `security read (${repoBotId})`;

/**
 * `security_read_enabled` of a provisioned repository: a live org token on the forge that reads
 * security findings, minted (or withdrawn) by provisioning, kept sealed as a workflow secret of
 * the team, handed to the repository's runs through its webhook's secret_overrides, and renewed
 * before it expires by every replica's sweep (one writer per repository, by its write lease).
 */
export class SecurityRead {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: SecurityReadDeps) {
    this.periodic = new Periodic(RENEW_EVERY_MS, () => this.renewDue());
  }

  /** Mints (true) or withdraws (false) the token; nothing on the forge when it is already so. Answers whether the forge was written. */
  async set(p: Principal, team: TeamRow, conn: OpenConnection, repoBotId: string, webhookId: string, enabled: boolean): Promise<boolean> {
    return withRepoBotLease(this.deps.store, this.deps.clock, repoBotId, async () => {
      const rb = (await f.findRepoBotOfTeam(this.deps.store.db, team.id, repoBotId))!;
      if (enabled && rb.security_secret_id !== null) {
        await this.handTo(p, team.id, webhookId, rb.security_secret_id);
        return false;
      }
      if (!enabled && rb.security_secret_id === null) return false;
      if (enabled) {
        const issuer = conn.securityTokens();
        const minted = await this.onForge("mint", () => issuer.mint(rb.repo, forgeLabelOf(rb.id)));
        const secretId = await this.keep(p, team, rb, minted);
        await this.handTo(p, team.id, webhookId, secretId);
      } else {
        await this.revoke(conn, rb);
        await this.handTo(p, team.id, webhookId, null);
        await this.deps.store.tx(async (tx) => {
          await this.release(tx, rb);
          await this.record(tx, p, team, rb, "forge.security_read.withdraw", {});
        });
      }
      return true;
    });
  }

  /** Withdraws the token on the forge (deprovisioning, before its rows go); nothing when none was minted. */
  async revoke(conn: OpenConnection, rb: f.RepoBotRow): Promise<void> {
    if (rb.security_secret_id === null) return;
    const token = (await this.deps.credentials.openSecret(rb.security_secret_id, rb.team_id))?.value ?? "";
    await this.onForge("revoke", () => conn.securityTokens().revoke(rb.repo, { token, forgeTokenId: rb.security_forge_token_id }, forgeLabelOf(rb.id)));
  }

  /** The token's rows: its secret, and the repository's note of it (in the caller's transaction, after its webhook stops naming it). */
  async release(tx: Db, rb: f.RepoBotRow): Promise<void> {
    if (rb.security_secret_id === null) return;
    await c.deleteWorkflowSecret(tx, rb.security_secret_id);
    await f.updateRepoBot(tx, rb.id, { security_secret_id: null, security_forge_token_id: null, security_expires_at: null, security_renew_at: null });
  }

  /** One sweep: each token due for its successor renewed; one the forge refuses is tried again next pass. Answers how many were renewed. */
  async renewDue(): Promise<number> {
    const { store, clock, log } = this.deps;
    let renewed = 0;
    for (const due of await f.listRepoBotsDueForSecurityRenewal(store.db, clock.now(), RENEW_BATCH)) {
      try {
        const leased = await tryRepoBotLease(store, clock, due.id, () => this.renew(due.id));
        if (leased.held && leased.value) renewed++;
      } catch (err) {
        log.warn({ err, repo_bot_id: due.id }, "renewing a security-read token failed; tried again at the next sweep");
      }
    }
    return renewed;
  }

  private async renew(repoBotId: string): Promise<boolean> {
    const { store, clock, sealer } = this.deps;
    const rb = await f.findRepoBot(store.db, repoBotId);
    // Withdrawn, or renewed by another replica, since the sweep's read.
    if (!rb || rb.security_secret_id === null || rb.security_renew_at === null || rb.security_renew_at > clock.now()) return false;
    const secret = await this.deps.credentials.openSecret(rb.security_secret_id, rb.team_id);
    if (!secret) return false;
    const conn = await this.deps.connections.open(store.db, rb.team_id, rb.connection_id);
    const held: SecurityToken = {
      token: secret.value,
      forgeTokenId: rb.security_forge_token_id,
      expiresAt: rb.security_expires_at ?? 0,
      renewAt: rb.security_renew_at,
    };
    const next = await this.onForge("renew", () => conn.securityTokens().renew(rb.repo, held, forgeLabelOf(rb.id)));
    const now = clock.now();
    const predecessor = {
      token: held.token,
      teamId: rb.team_id,
      connectionId: rb.connection_id,
      repo: rb.repo,
      forgeTokenId: held.forgeTokenId,
      expiresAt: held.expiresAt,
      notBefore: now + PREDECESSOR_GRACE_MS,
    };
    await store.tx(async (tx) => {
      await c.updateWorkflowSecretValue(tx, secret.id, sealedSecretValue(sealer, secret.id, next.token));
      await f.updateRepoBot(tx, rb.id, this.noted(next));
      // Revoked by TokenRevocations once the runs handed it have ended, not left live until it expires.
      await insertTokenToRevoke(tx, tokenToRevokeRow(sealer, predecessor, now));
    });
    return true;
  }

  /** The minted token sealed as the team's workflow secret, noted on the repository, audited. */
  private async keep(p: Principal, team: TeamRow, rb: f.RepoBotRow, minted: SecurityToken): Promise<string> {
    const { store, clock, ids, sealer } = this.deps;
    const id = ids.next("sec");
    const now = clock.now();
    await store.tx(async (tx) => {
      const row = { id, org_id: team.org_id, team_id: team.id, name: secretNameOf(rb.id), created_by: p.userId, created_at: now };
      await c.insertWorkflowSecret(tx, { ...row, ...sealedSecretValue(sealer, id, minted.token) });
      await f.updateRepoBot(tx, rb.id, { security_secret_id: id, ...this.noted(minted) });
      await this.record(tx, p, team, rb, "forge.security_read.enable", { expires_at: new Date(minted.expiresAt).toISOString() });
    });
    return id;
  }

  /** The webhook's secret_overrides name the token (or no longer do, for null); unchanged when already so. */
  private async handTo(p: Principal, teamId: string, webhookId: string, secretId: string | null): Promise<void> {
    const hook = await findWebhook(this.deps.store.db, webhookId);
    if (!hook) return;
    const overrides = configFromRow(hook).secret_overrides;
    if ((overrides[SECURITY_READ_OVERRIDE] ?? null) === secretId) return;
    const { [SECURITY_READ_OVERRIDE]: _dropped, ...others } = overrides;
    await this.deps.webhooks.update(p, teamId, webhookId, { secret_overrides: secretId === null ? others : { ...others, [SECURITY_READ_OVERRIDE]: secretId } });
  }

  private noted(t: SecurityToken) {
    return { security_forge_token_id: t.forgeTokenId, security_expires_at: t.expiresAt, security_renew_at: t.renewAt, updated_at: this.deps.clock.now() };
  }

  private record(tx: Db, p: Principal, team: TeamRow, rb: f.RepoBotRow, action: string, detail: Record<string, unknown>) {
    return this.deps.audit.record(tx, {
      actorId: p.userId,
      action,
      targetType: "repo_bot",
      targetId: rb.id,
      orgId: team.org_id,
      teamId: team.id,
      detail: { repo: rb.repo, ...detail },
    });
  }

  /** A forge call counted by its result; a refusal answers as the API's error. */
  private async onForge<T>(action: "mint" | "renew" | "revoke", call: () => Promise<T>): Promise<T> {
    try {
      const value = await onForge(`the security-read token (${action})`, call);
      this.deps.metrics.forgeSecurityTokens.inc({ action, result: "ok" });
      return value;
    } catch (err) {
      this.deps.metrics.forgeSecurityTokens.inc({ action, result: "failed" });
      throw err;
    }
  }
}
