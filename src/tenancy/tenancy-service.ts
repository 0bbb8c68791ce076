import { checkName } from "../core/names.js";
import type { ChangeFeed } from "../core/change-feed.js";
import type { Clock } from "../core/clock.js";
import { ServiceError, conflict, invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { usdToMicro } from "../core/money.js";
import type { Db, Store } from "../store/store.js";
import * as t from "../store/tenancy.js";
import { revokeUserBearers } from "../store/bearers.js";
import type { Access, Principal } from "./access.js";
import type { AuditLog } from "./audit.js";
import { BEARERS } from "./bearer.js";
import { orgView, storeAudience, teamView, userView, type CredentialAudience } from "./views.js";
import type { BoardMode } from "./board-mode.js";

export type OrgStatus = "active" | "suspended" | "read-only";

export interface OrgInput {
  name?: string;
  status?: OrgStatus;
  monthly_cost_cap_usd?: number;
  monthly_run_quota?: number;
  memory_quota_bytes?: number;
  monthly_webhook_calls?: number;
  credential_audience?: CredentialAudience;
  /** The org's layer of the usage-window retry policy; null clears a value back to the platform's. */
  retry_usage_window?: boolean | null;
  retry_max_attempts?: number | null;
  retry_max_wait?: number | null;
  retry_jitter?: number | null;
  /** Whose runners claim the org's runs: the platform's pool (default) or the org's own runner tokens. */
  runner_pool?: "platform" | "org";
}

export interface TeamInput {
  name?: string;
  status?: OrgStatus;
  max_concurrent_runs?: number;
  launch_rate_per_min?: number;
  board_mode?: BoardMode;
}

export interface TenancyDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
  /** Told of committed org changes (status, webhook quota), so cached copies drop. */
  changes: ChangeFeed;
}

const LOGIN_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Orgs, teams, users and memberships: the tenancy every other capability hangs on. */
export class TenancyService {
  constructor(private readonly deps: TenancyDeps) {}

  // Orgs (super-admin)

  async createOrg(p: Principal, input: OrgInput & { name: string }) {
    this.deps.access.requireSuperAdmin(p);
    const now = this.deps.clock.now();
    const id = this.deps.ids.next("org");
    await this.deps.store.tx(async (tx) => {
      await t.insertOrg(tx, { id, created_at: now, updated_at: now, ...ORG_DEFAULTS, ...orgColumns(input), name: checkName(input.name) });
      await this.deps.audit.record(tx, { actorId: p.userId, action: "org.create", targetType: "org", targetId: id, orgId: id });
    });
    return orgView((await t.findOrg(this.deps.store.db, id))!);
  }

  async listOrgs(p: Principal) {
    this.deps.access.requireSuperAdmin(p);
    return (await t.listOrgs(this.deps.store.db)).map(orgView);
  }

  async getOrg(p: Principal, orgId: string) {
    this.deps.access.requireSuperAdmin(p);
    const org = await t.findOrg(this.deps.store.db, orgId);
    if (!org) throw notFound("org");
    return orgView(org);
  }

  async updateOrg(p: Principal, orgId: string, input: OrgInput) {
    this.deps.access.requireSuperAdmin(p);
    await this.deps.store.tx(async (tx) => {
      if (!(await t.findOrg(tx, orgId))) throw notFound("org");
      await t.updateOrg(tx, orgId, { ...orgColumns(input), updated_at: this.deps.clock.now() });
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "org.update",
        targetType: "org",
        targetId: orgId,
        orgId,
        detail: { fields: Object.keys(input) },
      });
    });
    this.deps.changes.publish({ kind: "org", id: orgId });
    return orgView((await t.findOrg(this.deps.store.db, orgId))!);
  }

  // Teams

  async createTeam(p: Principal, orgId: string, input: TeamInput & { name: string }) {
    await this.deps.access.org(p, orgId, "admin");
    const now = this.deps.clock.now();
    const id = this.deps.ids.next("team");
    await this.deps.store.tx(async (tx) => {
      await t.insertTeam(tx, { id, org_id: orgId, created_at: now, updated_at: now, ...TEAM_DEFAULTS, ...teamColumns(input), name: checkName(input.name) });
      await this.deps.audit.record(tx, { actorId: p.userId, action: "team.create", targetType: "team", targetId: id, orgId, teamId: id });
    });
    return teamView((await t.findTeam(this.deps.store.db, id))!);
  }

  /** Org admins see every team of the org; members see the teams they belong to. */
  async listTeams(p: Principal, orgId: string) {
    const { role } = await this.deps.access.org(p, orgId, "member");
    const db = this.deps.store.db;
    const rows = role === "admin" ? await t.listTeamsOfOrg(db, orgId) : await t.listTeamsOfOrgForUser(db, orgId, p.userId);
    return rows.map(teamView);
  }

  async getTeam(p: Principal, teamId: string) {
    const { team } = await this.deps.access.team(p, teamId, "member");
    return teamView(team);
  }

  /**
   * Team limits, status and name are the org's to set (spec: an org admin writes team status);
   * the team's board is its admins' own.
   */
  async updateTeam(p: Principal, teamId: string, input: TeamInput) {
    const { team, orgAdmin } = await this.deps.access.team(p, teamId, "admin");
    const orgFields = Object.keys(input).filter((k) => k !== "board_mode");
    if (!orgAdmin && orgFields.length > 0) throw new ServiceError("forbidden", `org admin role required to change ${orgFields.join(", ")}`);
    await this.deps.store.tx(async (tx) => {
      await t.updateTeam(tx, teamId, { ...teamColumns(input), updated_at: this.deps.clock.now() });
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "team.update",
        targetType: "team",
        targetId: teamId,
        orgId: team.org_id,
        teamId,
        detail: { fields: Object.keys(input) },
      });
    });
    // Deliveries read the team's status with their webhook's configuration.
    this.deps.changes.publish({ kind: "org", id: team.org_id });
    return teamView((await t.findTeam(this.deps.store.db, teamId))!);
  }

  // Users

  async createUser(p: Principal, input: { login: string; name?: string; super_admin?: boolean }) {
    this.deps.access.requireSuperAdmin(p);
    const login = input.login.toLowerCase();
    if (!LOGIN_RE.test(login)) throw invalid("login", "login must be 1-63 characters of letters, digits, . _ -");
    const id = this.deps.ids.next("usr");
    await this.deps.store.tx(async (tx) => {
      if (await t.findUserByLogin(tx, login)) throw conflict(`login ${login} is taken`);
      await t.insertUser(tx, {
        id,
        login,
        name: input.name === undefined ? login : checkName(input.name),
        super_admin: input.super_admin ? 1 : 0,
        created_at: this.deps.clock.now(),
      });
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "user.create",
        targetType: "user",
        targetId: id,
        detail: { login, super_admin: !!input.super_admin },
      });
    });
    return userView((await t.findUser(this.deps.store.db, id))!);
  }

  /** Deactivating revokes every token and ends every session of the user at once; reactivating restores none. */
  async setUserActive(p: Principal, userId: string, active: boolean) {
    this.deps.access.requireSuperAdmin(p);
    if (!active && userId === p.userId) throw conflict("a super-admin cannot deactivate themselves");
    const now = this.deps.clock.now();
    await this.deps.store.tx(async (tx) => {
      if (!(await t.setUserDeactivated(tx, userId, active ? null : now))) throw notFound("user");
      const revoked = active ? 0 : await revokeUserBearers(tx, BEARERS.access_token.table, userId, now);
      const closed = active ? 0 : await revokeUserBearers(tx, BEARERS.session.table, userId, now);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: active ? "user.reactivate" : "user.deactivate",
        targetType: "user",
        targetId: userId,
        detail: { tokens_revoked: revoked, sessions_closed: closed },
      });
    });
    return userView((await t.findUser(this.deps.store.db, userId))!);
  }

  async me(p: Principal) {
    const db = this.deps.store.db;
    const user = await t.findUser(db, p.userId);
    if (!user) throw notFound("user");
    return { ...userView(user), orgs: await t.listOrgMemberships(db, p.userId), teams: await t.listTeamMemberships(db, p.userId) };
  }

  // Memberships

  async putOrgMember(p: Principal, orgId: string, userId: string, role: t.Role) {
    await this.deps.access.org(p, orgId, "admin");
    return this.changeMembership(p, { kind: "org", id: orgId, orgId, userId, role });
  }

  async deleteOrgMember(p: Principal, orgId: string, userId: string) {
    await this.deps.access.org(p, orgId, "admin");
    return this.changeMembership(p, { kind: "org", id: orgId, orgId, userId, role: null });
  }

  /**
   * Only members of the team's org join its teams. An org admin (or super-admin) adding someone
   * makes them an org member too; a team admin may add org members only, and learns nothing of
   * a user outside the org, not even whether the id exists.
   */
  async putTeamMember(p: Principal, teamId: string, userId: string, role: t.Role) {
    const { team, orgAdmin } = await this.deps.access.team(p, teamId, "admin");
    return this.changeMembership(p, { kind: "team", id: teamId, orgId: team.org_id, userId, role, joinOrg: orgAdmin });
  }

  async deleteTeamMember(p: Principal, teamId: string, userId: string) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    return this.changeMembership(p, { kind: "team", id: teamId, orgId: team.org_id, userId, role: null });
  }

  private async changeMembership(p: Principal, m: { kind: "org" | "team"; id: string; orgId: string; userId: string; role: t.Role | null; joinOrg?: boolean }) {
    const now = this.deps.clock.now();
    await this.deps.store.tx(async (tx) => {
      const inOrg = await t.findOrgRole(tx, m.orgId, m.userId);
      if (m.kind === "team" && m.role !== null && !inOrg && !m.joinOrg) throw new ServiceError("not_found", "no such user in this org");
      if (!(await t.findUser(tx, m.userId))) throw notFound("user");
      await writeMembership(tx, m, inOrg !== undefined, now);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: `${m.kind}.member.${m.role === null ? "remove" : "put"}`,
        targetType: m.kind,
        targetId: m.id,
        orgId: m.orgId,
        teamId: m.kind === "team" ? m.id : null,
        detail: { user_id: m.userId, role: m.role },
      });
    });
    return m.role === null ? null : { [`${m.kind}_id`]: m.id, user_id: m.userId, role: m.role };
  }
}

/** The membership's row put or removed; a user put on a team joins its org as a member first. */
async function writeMembership(
  tx: Db,
  m: { kind: "org" | "team"; id: string; orgId: string; userId: string; role: t.Role | null },
  inOrg: boolean,
  now: number,
) {
  if (m.role === null) {
    const removed = m.kind === "org" ? await t.deleteOrgMember(tx, m.id, m.userId) : await t.deleteTeamMember(tx, m.id, m.userId);
    if (!removed) throw notFound("membership");
  } else if (m.kind === "org") {
    await t.putOrgMember(tx, m.id, m.userId, m.role, now);
  } else {
    if (!inOrg) await t.putOrgMember(tx, m.orgId, m.userId, "member", now);
    await t.putTeamMember(tx, m.id, m.userId, m.role, now);
  }
}

const ORG_DEFAULTS = {
  status: "active",
  monthly_cost_cap_micro: 0,
  monthly_run_quota: 0,
  memory_quota_bytes: 0,
  monthly_webhook_calls: 0,
  credential_audience: "all",
} as const;

const TEAM_DEFAULTS = { status: "active", max_concurrent_runs: 0, launch_rate_per_min: 0, board_mode: "off" } as const;

function orgColumns(input: OrgInput) {
  return {
    ...(input.name !== undefined && { name: checkName(input.name) }),
    ...(input.status !== undefined && { status: input.status }),
    ...(input.monthly_cost_cap_usd !== undefined && { monthly_cost_cap_micro: usdToMicro(input.monthly_cost_cap_usd) }),
    ...(input.monthly_run_quota !== undefined && { monthly_run_quota: input.monthly_run_quota }),
    ...(input.memory_quota_bytes !== undefined && { memory_quota_bytes: input.memory_quota_bytes }),
    ...(input.monthly_webhook_calls !== undefined && { monthly_webhook_calls: input.monthly_webhook_calls }),
    ...(input.credential_audience !== undefined && { credential_audience: storeAudience(input.credential_audience) }),
    ...(input.retry_usage_window !== undefined && { retry_usage_window: input.retry_usage_window === null ? null : input.retry_usage_window ? 1 : 0 }),
    ...(input.retry_max_attempts !== undefined && { retry_max_attempts: input.retry_max_attempts }),
    ...(input.retry_max_wait !== undefined && { retry_max_wait: input.retry_max_wait }),
    ...(input.retry_jitter !== undefined && { retry_jitter: input.retry_jitter }),
    ...(input.runner_pool !== undefined && { runner_pool: input.runner_pool }),
  };
}

function teamColumns(input: TeamInput) {
  return {
    ...(input.name !== undefined && { name: checkName(input.name) }),
    ...(input.status !== undefined && { status: input.status }),
    ...(input.max_concurrent_runs !== undefined && { max_concurrent_runs: input.max_concurrent_runs }),
    ...(input.launch_rate_per_min !== undefined && { launch_rate_per_min: input.launch_rate_per_min }),
    ...(input.board_mode !== undefined && { board_mode: input.board_mode }),
  };
}
