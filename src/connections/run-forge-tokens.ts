import { sha256Hex } from "../core/secrets.js";
import type { Sealer } from "../core/sealer.js";
import type { ForgeClients } from "../forges/forge-clients.js";
import { openForgeApp } from "../forges/open-app.js";
import type { ForgeProviderName } from "../forges/shared/forge-client.js";
import type { ForgeConnectionHandout, ForgePermissions, RunForgeTokenSource } from "../credentials/run-credentials.js";
import * as f from "../store/forge-connections.js";
import type { RunRow } from "../store/runs.js";
import type { Store } from "../store/store.js";
import { findWebhook } from "../store/webhooks.js";
import { openCredential } from "./connection-credential.js";

/** What a bot may do with its repository when its bots-file entry names no `forge_permissions`: read the code, review. */
export const DEFAULT_FORGE_PERMISSIONS: ForgePermissions = { contents: "read", metadata: "read", pull_requests: "write" };

/**
 * BOT_FORGE_TOKEN: a run on a connected repository (POST /api/runs with `connection_id`, or a
 * delivery to a provisioned repository) is handed a forge credential for that repository. An
 * App connection (GitHub) mints an installation token narrowed to the one repository and to the
 * bot's `forge_permissions`, revoked when the attempt ends; a token connection hands its own
 * token (a token cannot be narrowed by the service).
 */
export class RunForgeTokens implements RunForgeTokenSource {
  constructor(private readonly deps: { store: Store; sealer: Sealer; forgeClients: ForgeClients }) {}

  async tokenFor(run: RunRow, permissions: ForgePermissions | undefined): Promise<ForgeConnectionHandout | undefined> {
    const db = this.deps.store.db;
    let target: { connectionId: string; repo: string | null } | undefined;
    if (run.connection_id !== null) target = { connectionId: run.connection_id, repo: run.project_path };
    else if (run.webhook_id !== null) {
      const hook = await findWebhook(db, run.webhook_id);
      const rb = hook?.provisioned_by ? await f.findRepoBot(db, hook.provisioned_by) : undefined;
      if (rb) target = { connectionId: rb.connection_id, repo: rb.repo };
    }
    if (!target) return undefined;
    const conn = await f.findForgeConnectionOfTeam(db, run.team_id, target.connectionId);
    if (!conn) return { kind: "unavailable", cause: `forge connection ${target.connectionId} of the run no longer exists` };
    if (!target.repo) return { kind: "unavailable", cause: "the run names no repository for its forge connection" };
    const credential = openCredential(this.deps.sealer, conn);
    if (credential.kind === "token") return this.handout(conn.id, credential.token, "connection token");
    const provider = conn.provider as ForgeProviderName;
    try {
      const app = openForgeApp(this.deps.forgeClients.network, provider, conn.base_url, credential.app);
      const minted = await app.repositoryToken(target.repo, permissions ?? DEFAULT_FORGE_PERMISSIONS);
      return { ...this.handout(conn.id, minted.token, `installation token for ${target.repo}`), minted: { repo: target.repo, expiresAt: minted.expiresAt } };
    } catch (err) {
      const cause = err instanceof Error ? err.message : String(err);
      return { kind: "unavailable", cause: `${provider} minted no installation token for ${target.repo}: ${cause}` };
    }
  }

  private handout(connectionId: string, token: string, what: string): Extract<ForgeConnectionHandout, { kind: "token" }> {
    return { kind: "token", token, connectionId, name: what, fingerprint: sha256Hex(token) };
  }
}
