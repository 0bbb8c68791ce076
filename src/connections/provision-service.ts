import type { Clock } from "../core/clock.js";
import type { ChangeFeed } from "../core/change-feed.js";
import { conflict, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { Sealer } from "../core/sealer.js";
import { ForgeFailure } from "../forges/shared/forge-errors.js";
import type { ForgeHooks } from "../forges/shared/forge-hooks.js";
import * as f from "../store/forge-connections.js";
import type { Store } from "../store/store.js";
import type { TeamRow } from "../store/tenancy.js";
import * as w from "../store/webhooks.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { configFromRow, secretsFromRow } from "../webhooks/webhook-record.js";
import { rotatedSecretColumns } from "../webhooks/rotated-secret-columns.js";
import { sealsSecret } from "../webhooks/webhook-rules.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import { mintWebhookToken } from "../webhooks/webhook-token.js";
import { webhookViewOfRow } from "../webhooks/webhook-views.js";
import type { ConnectionService, OpenConnection } from "./connection-service.js";
import { repoBotView } from "./connection-views.js";
import { onForge } from "./forge-errors-as-service.js";
import { checkRepoBotInput, checkRepoPath, gateContextOf, type RepoBotInput, webhookFieldsOf } from "./repo-bot-fields.js";
import { withRepoBotLease } from "./repo-bot-lease.js";
import type { SecurityRead } from "./security-read.js";
import { deliveryAddress } from "./webhook-base.js";

export interface ProvisionDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  sealer: Sealer;
  access: Access;
  audit: AuditLog;
  webhooks: WebhookService;
  connections: ConnectionService;
  securityRead: SecurityRead;
  changes: ChangeFeed;
  /** How long a rewritten hook's old token still proves deliveries (SERVICE_FORGE_ROTATION_OVERLAP). */
  rotationOverlapMs: number;
  /** The service's public base address: the delivery address unless the connection pins another. */
  baseUrl: string;
}

/** The gate settings the input sets, as the repo bot's row holds them; a re-provision changes only these. */
function gateSettingsGiven(input: RepoBotInput) {
  return {
    ...(input.gate_context !== undefined && { gate_context: gateContextOf(input.gate_context) }),
    ...(input.auto_fix_on_gate_failure !== undefined && { auto_fix_on_gate_failure: input.auto_fix_on_gate_failure ? 1 : 0 }),
    ...(input.review_after_gate !== undefined && { review_after_gate: input.review_after_gate ? 1 : 0 }),
  };
}

/**
 * Wires a repository through a connection: its webhook config (marked provisioned_by the repo
 * bot's id), its hook on the forge, and the token they share. Every step can be repeated: the
 * store rows are found before they are made, and the forge's hook is found by id or address.
 */
export class ProvisionService {
  constructor(private readonly deps: ProvisionDeps) {}

  async provision(p: Principal, teamId: string, input: RepoBotInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    checkRepoBotInput(input);
    const { store, clock, connections } = this.deps;
    // The pin is the connection's, set as its PATCH sets it (checked, audited) and read back below.
    if (input.webhook_base_url !== undefined) await connections.update(p, teamId, input.connection_id, { webhook_base_url: input.webhook_base_url });
    const conn = await connections.open(store.db, teamId, input.connection_id);
    const repo = checkRepoPath(conn.provider, input.repo);
    // 422 before anything is written where the forge or the credential cannot mint the token.
    if (input.security_read_enabled === true) conn.securityTokens();
    const now = clock.now();
    const rb = await f.ensureRepoBot(store.db, {
      id: this.deps.ids.next("rbt"),
      connection_id: conn.row.id,
      team_id: teamId,
      repo,
      hook_id: null,
      hook_url: null,
      gate_context: gateContextOf(input.gate_context),
      auto_fix_on_gate_failure: input.auto_fix_on_gate_failure ? 1 : 0,
      review_after_gate: input.review_after_gate ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
    const extras = gateSettingsGiven(input);
    if (Object.keys(extras).length > 0) await f.updateRepoBot(store.db, rb.id, { ...extras, updated_at: now });
    const first = rb.hook_id === null && !(await f.findWebhookProvisionedBy(store.db, rb.id));
    const webhookId = await this.ensureWebhook(p, teamId, conn, rb, input).catch(async (err: unknown) => {
      // A first provision the webhook capability refused (an unknown bot, say) leaves no row behind.
      if (rb.hook_id === null && !(await f.findWebhookProvisionedBy(store.db, rb.id))) await f.deleteRepoBot(store.db, rb.id);
      throw err;
    });

    // Deliveries read the gate settings with their webhook.
    if (Object.keys(extras).length > 0) this.deps.changes.publish({ kind: "webhook", id: webhookId });
    const address = deliveryAddress(conn.row.webhook_base_url ?? this.deps.baseUrl, conn.provider, webhookId);
    const hookWritten =
      rb.hook_id !== null && rb.hook_url === address
        ? false
        : await this.writeHookOnce(p, team, conn, rb, webhookId, address).catch(async (err: unknown) => {
            // A first provision the forge refused (or never answered) leaves nothing behind; an update keeps what was there.
            if (first && (await f.findRepoBotOfTeam(store.db, teamId, rb.id))?.hook_id === null) {
              await store.tx(async (tx) => {
                await w.deleteWebhook(tx, webhookId);
                await f.deleteRepoBot(tx, rb.id);
              });
              this.deps.changes.publish({ kind: "webhook", id: webhookId });
            }
            throw err;
          });
    const tokenWritten =
      input.security_read_enabled === undefined ? false : await this.deps.securityRead.set(p, team, conn, rb.id, webhookId, input.security_read_enabled);
    return this.view(teamId, rb.id, hookWritten || tokenWritten);
  }

  /**
   * Writes the hook again whatever the stored state says (made again if gone, turned on,
   * subscribed, pointed at its address, with a fresh token): the provision's write, forced.
   */
  async repair(p: Principal, teamId: string, repoBotId: string): Promise<void> {
    const { db, rb, conn } = await this.rewrite(p, teamId, repoBotId, "repair");
    const hooks = await conn.hooks();
    if (!hooks.enableHook) return;
    // GitLab keeps a hook it disabled for failing disabled through an edit: its test delivery, signed
    // with the token just committed, enables it. A refused test leaves it so, as the next health read says.
    const hookId = (await f.findRepoBotOfTeam(db, teamId, rb.id))!.hook_id!;
    const state = await hooks.getHook(rb.repo, hookId).catch(() => undefined);
    if (state?.active === false) await hooks.enableHook(rb.repo, hookId).catch(() => undefined);
  }

  /**
   * A provisioned webhook's token rotated: a fresh one written to the forge's hook, the replaced one
   * still proving deliveries for the rotation overlap, so none sent meanwhile is refused.
   */
  async rotate(p: Principal, teamId: string, repoBotId: string, overlapSeconds?: number) {
    await this.rewrite(p, teamId, repoBotId, "rotate", overlapSeconds === undefined ? undefined : overlapSeconds * 1000);
    return this.view(teamId, repoBotId, true);
  }

  /** The provisioned repository's hook written again whatever moved (repair, rotate). */
  private async rewrite(p: Principal, teamId: string, repoBotId: string, why: "repair" | "rotate", overlapMs?: number) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    const db = this.deps.store.db;
    const rb = await f.findRepoBotOfTeam(db, teamId, repoBotId);
    if (!rb) throw notFound("repo bot");
    const webhook = await f.findWebhookProvisionedBy(db, rb.id);
    if (!webhook) throw conflict("this repository's provision did not finish; provision it again");
    const conn = await this.deps.connections.open(db, teamId, rb.connection_id);
    const address = deliveryAddress(conn.row.webhook_base_url ?? this.deps.baseUrl, conn.provider, webhook.id);
    await this.writeHookOnce(p, team, conn, rb, webhook.id, address, why, overlapMs);
    return { db, rb, conn };
  }

  /**
   * The hook told the address and a fresh token, under the repository's write lease; false when a
   * provision before did it. `repair` and `rotate` write even when nothing moved, audited as such.
   * A hook the forge held before keeps proving deliveries with its old token for the rotation overlap.
   */
  private writeHookOnce(
    p: Principal,
    team: TeamRow,
    conn: OpenConnection,
    rb: f.RepoBotRow,
    webhookId: string,
    address: string,
    why: "provision" | "repair" | "rotate" = "provision",
    overlapMs = this.deps.rotationOverlapMs,
  ): Promise<boolean> {
    const { store, clock } = this.deps;
    const teamId = team.id;
    const repo = rb.repo;
    return withRepoBotLease(store, clock, rb.id, async () => {
      // Read again under the lease: a provision that held it before may have done the work.
      const current = (await f.findRepoBotOfTeam(store.db, teamId, rb.id))!;
      if (why === "provision" && current.hook_id !== null && current.hook_url === address) return false;
      const row = (await w.findWebhook(store.db, webhookId))!;
      const { provider, sign_mode } = configFromRow(row);
      const minted = mintWebhookToken(this.deps.sealer, webhookId, sealsSecret(provider, sign_mode));
      const hooks = await conn.hooks();
      const hook = await onForge("the hook", () => this.writeHook(hooks, repo, current, { url: address, secret: minted.token }));
      // The forge may still send what it signed with the old token; a first hook had none to send.
      const overlap = current.hook_id === null ? 0 : overlapMs;
      await store.tx(async (tx) => {
        const now = clock.now();
        await w.updateWebhook(tx, webhookId, {
          token_last4: minted.last4,
          ...rotatedSecretColumns(secretsFromRow(row), minted.secrets, overlap, now),
          updated_at: now,
        });
        await f.updateRepoBot(tx, rb.id, { hook_id: hook.id, hook_url: address, hook_written_at: clock.now(), updated_at: clock.now() });
        await this.deps.audit.record(tx, {
          actorId: p.userId,
          action: `forge.${why}`,
          targetType: "repo_bot",
          targetId: rb.id,
          orgId: team.org_id,
          teamId,
          detail: { repo, webhook_id: webhookId, hook_id: hook.id, overlap_seconds: overlap / 1000 },
        });
      });
      this.deps.changes.publish({ kind: "webhook", id: webhookId });
      return true;
    });
  }

  /** The forge write: the known hook rewritten in place, else one already at the address adopted, else a new one. */
  private async writeHook(hooks: ForgeHooks, repo: string, rb: f.RepoBotRow, spec: { url: string; secret: string }) {
    const known = rb.hook_id ?? (await hooks.listHooks(repo)).find((h) => h.url === spec.url || h.url === rb.hook_url)?.id;
    if (known !== undefined) {
      const updated = await hooks.updateHook(repo, known, spec).catch((err: unknown) => {
        // A hook deleted on the forge by hand is made again.
        if (err instanceof ForgeFailure && err.error.code === "not_found") return undefined;
        throw err;
      });
      if (updated) return updated;
    }
    return hooks.createHook(repo, spec);
  }

  /** The config made by an earlier (perhaps interrupted) provision, updated with the named fields; else a new one. */
  private async ensureWebhook(p: Principal, teamId: string, conn: OpenConnection, rb: f.RepoBotRow, input: RepoBotInput): Promise<string> {
    const fields = webhookFieldsOf(input);
    const existing = await f.findWebhookProvisionedBy(this.deps.store.db, rb.id);
    if (existing) {
      if (Object.keys(fields).length > 0) await this.deps.webhooks.update(p, teamId, existing.id, fields, { provisioning: true });
      return existing.id;
    }
    const body = {
      provider: conn.provider,
      name: `${rb.repo} (provisioned)`.slice(0, 200),
      project_allowlist: [rb.repo],
      // The hook subscribes to the events the lanes use; the config takes whatever it sends (narrow it with PATCH).
      event_allowlist: ["*"],
      forge_base_url: conn.row.base_url,
      ...fields,
    };
    return (await this.deps.webhooks.create(p, teamId, body, { provisionedBy: rb.id })).config.id;
  }

  async view(teamId: string, repoBotId: string, wrote?: boolean) {
    const db = this.deps.store.db;
    const rb = (await f.findRepoBotOfTeam(db, teamId, repoBotId))!;
    const webhook = await f.findWebhookProvisionedBy(db, rb.id);
    return {
      ...repoBotView(rb, webhook?.id ?? null),
      ...(webhook && { webhook: webhookViewOfRow(webhook, this.deps.baseUrl, this.deps.clock.now()) }),
      ...(wrote !== undefined && { forge_written: wrote }),
    };
  }
}
