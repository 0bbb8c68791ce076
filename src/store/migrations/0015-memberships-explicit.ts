import { sql, type Kysely, type Migration } from "kysely";

/**
 * Org membership made explicit: every team member gets the org membership a team once implied
 * (role member), so that leaving the org can end team access with it. Users can be deactivated.
 */
export const m0015MembershipsExplicit: Migration = {
  async up(db: Kysely<any>) {
    await sql`
      insert into org_members (org_id, user_id, role, created_at)
      select teams.org_id, team_members.user_id, 'member', min(team_members.created_at)
      from team_members inner join teams on teams.id = team_members.team_id
      where not exists (select 1 from org_members where org_members.org_id = teams.org_id and org_members.user_id = team_members.user_id)
      group by teams.org_id, team_members.user_id
    `.execute(db);
    await db.schema.alterTable("users").addColumn("deactivated_at", "bigint").execute();
  },
};
