import { ServiceError, notFound } from "../core/errors.js";
import type { Store } from "../store/store.js";
import { findOrg, findOrgRole, findTeam, findTeamRole, type OrgRow, type Role, type TeamRow } from "../store/tenancy.js";

/** Who is calling: the user behind a personal access token or a session. */
export interface Principal {
  userId: string;
  login: string;
  superAdmin: boolean;
  /** The access token's or the session's row id. */
  tokenId: string;
  /** Set when the bearer is a session (ses_), not a personal access token. */
  sessionId?: string;
  /** The session may only change the password (admin-set or expired password). */
  passwordChangeRequired?: boolean;
}

const forbidden = (what: string) => new ServiceError("forbidden", `${what} role required`);

/**
 * Authorisation over the tenancy tree. Team member < team admin; an org admin is team admin
 * on every team of the org; a super-admin is everything. An object the caller has no
 * relation to is reported as not found, so ids leak nothing.
 */
export class Access {
  constructor(private readonly store: Store) {}

  requireSuperAdmin(p: Principal): void {
    if (!p.superAdmin) throw forbidden("super-admin");
  }

  /** The team, if the caller holds at least `need` on it. Returns the caller's effective role. */
  async team(p: Principal, teamId: string, need: Role): Promise<{ team: TeamRow; role: Role; orgAdmin: boolean }> {
    const db = this.store.db;
    const team = await findTeam(db, teamId);
    if (!team) throw notFound("team");
    if (p.superAdmin) return { team, role: "admin", orgAdmin: true };
    if ((await findOrgRole(db, team.org_id, p.userId)) === "admin") return { team, role: "admin", orgAdmin: true };
    const role = await findTeamRole(db, teamId, p.userId);
    if (!role) throw notFound("team");
    if (need === "admin" && role !== "admin") throw forbidden("team admin");
    return { team, role, orgAdmin: false };
  }

  /** The org, if the caller holds at least `need` on it (every team member is an org member). */
  async org(p: Principal, orgId: string, need: Role): Promise<{ org: OrgRow; role: Role }> {
    const db = this.store.db;
    const org = await findOrg(db, orgId);
    if (!org) throw notFound("org");
    if (p.superAdmin) return { org, role: "admin" };
    const role = await findOrgRole(db, orgId, p.userId);
    if (!role) throw notFound("org");
    if (need === "admin" && role !== "admin") throw forbidden("org admin");
    return { org, role };
  }
}
