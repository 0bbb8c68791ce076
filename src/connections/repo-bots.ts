import type { ChangeFeed } from "../core/change-feed.js";
import { notFound } from "../core/errors.js";
import type { ForgeHooks } from "../forges/shared/forge-hooks.js";
import * as f from "../store/forge-connections.js";
import type { Store } from "../store/store.js";
import { deleteWebhookBucket } from "../store/webhook-calls.js";
import * as w from "../store/webhooks.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import type { ConnectionService } from "./connection-service.js";
import { repoBotView } from "./connection-views.js";
import { onForge } from "./forge-errors-as-service.js";
import type { SecurityRead } from "./security-read.js";
import { deliveryAddress } from "./webhook-base.js";

export interface RepoBotsDeps {
  store: Store;
  access: Access;
  audit: AuditLog;
  connections: ConnectionService;
  securityRead: SecurityRead;
  changes: ChangeFeed;
  baseUrl: string;
}

/** Provisioned repositories: listed, matched against the forge's, and deprovisioned (hook first, then the rows). */
export class RepoBots {
  constructor(private readonly deps: RepoBotsDeps) {}

  async list(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    const db = this.deps.store.db;
    const rows = await f.listRepoBotsOfTeam(db, teamId);
    return Promise.all(rows.map(async (r) => repoBotView(r, (await f.findWebhookProvisionedBy(db, r.id))?.id ?? null)));
  }

  /**
   * The repositories the connection's credential can add hooks to, from the forge, each with its
   * provisioning; without a connection, every connection's of the team (a forge failing fails the list).
   */
  async repos(p: Principal, teamId: string, connectionId?: string) {
    await this.deps.access.team(p, teamId, "member");
    const db = this.deps.store.db;
    const ids = connectionId !== undefined ? [connectionId] : (await f.listForgeConnectionsOfTeam(db, teamId)).map((c) => c.id);
    const lists = await Promise.all(ids.map((id) => this.reposOf(teamId, id)));
    return lists.flat();
  }

  private async reposOf(teamId: string, connectionId: string) {
    const db = this.deps.store.db;
    const conn = await this.deps.connections.open(db, teamId, connectionId);
    const hooks = await conn.hooks();
    const onForgeSide = await onForge("the repository list", () => hooks.listRepos());
    const provisioned = new Map((await f.listRepoBotsOfConnection(db, connectionId)).map((r) => [r.repo, r]));
    return Promise.all(
      onForgeSide.map(async ({ repo }) => {
        const rb = provisioned.get(repo);
        const wired = rb !== undefined && rb.hook_id !== null;
        return {
          repo,
          connection_id: connectionId,
          provider: conn.provider,
          provisioned: wired,
          repo_bot_id: rb?.id ?? null,
          hook_id: rb?.hook_id ?? null,
          hook: wired ? await hookHealth(hooks, rb) : null,
        };
      }),
    );
  }

  /** Removes the hook on the forge, then the webhook config and the row; a retry after a crash finds the hook gone. */
  async deprovision(p: Principal, teamId: string, repoBotId: string): Promise<void> {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    const { store } = this.deps;
    const rb = await f.findRepoBotOfTeam(store.db, teamId, repoBotId);
    if (!rb) throw notFound("repo bot");
    const conn = await this.deps.connections.open(store.db, teamId, rb.connection_id);
    const webhook = await f.findWebhookProvisionedBy(store.db, rb.id);
    await this.deps.securityRead.revoke(conn, rb);
    const hooks = await conn.hooks();
    await onForge("removing the hook", async () => {
      if (rb.hook_id !== null) return hooks.deleteHook(rb.repo, rb.hook_id);
      // A provision interrupted before its commit may have left a hook at the config's address.
      if (!webhook) return;
      const address = deliveryAddress(conn.row.webhook_base_url ?? this.deps.baseUrl, conn.provider, webhook.id);
      for (const h of await hooks.listHooks(rb.repo)) if (h.url === address) await hooks.deleteHook(rb.repo, h.id);
    });
    await store.tx(async (tx) => {
      if (webhook) {
        await w.deleteWebhook(tx, webhook.id);
        await deleteWebhookBucket(tx, webhook.id);
      }
      await this.deps.securityRead.release(tx, rb);
      await f.deleteRepoBot(tx, rb.id);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "forge.deprovision",
        targetType: "repo_bot",
        targetId: rb.id,
        orgId: team.org_id,
        teamId,
        detail: { repo: rb.repo, webhook_id: webhook?.id ?? null },
      });
    });
    if (webhook) this.deps.changes.publish({ kind: "webhook", id: webhook.id });
  }
}

/** `ok`: the forge holds the hook at the committed address; `moved`: at another (a provision repairs it); `missing`: gone. */
async function hookHealth(hooks: ForgeHooks, rb: f.RepoBotRow): Promise<"ok" | "moved" | "missing"> {
  const hook = (await onForge("the hook list", () => hooks.listHooks(rb.repo))).find((h) => h.id === rb.hook_id);
  return hook === undefined ? "missing" : hook.url === rb.hook_url ? "ok" : "moved";
}
