import { Argument, type Command } from "commander";
import { enc } from "../api.js";
import { action } from "../context.js";
import { fields, table } from "../output.js";

const TEAM_STATUSES = ["active", "suspended", "read-only"];
const BOARD_MODES = ["off", "track", "coordinate"];

export function registerTenancy(program: Command): void {
  const orgs = program.command("orgs").description("organisations");
  orgs
    .command("list")
    .description("orgs you belong to (every org, for a super-admin)")
    .action(
      action(async (ctx) => {
        const api = await ctx.api();
        const me = await api.get("/api/users/me");
        const list = me.super_admin ? (await api.get("/api/admin/orgs")).orgs : me.orgs;
        ctx.out.show({ orgs: list }, (d) =>
          table(d.orgs as any[], [
            { header: "ID", get: (o) => o.id },
            { header: "NAME", get: (o) => o.name },
            { header: "STATUS / ROLE", get: (o) => o.status ?? o.role },
          ]),
        );
      }),
    );

  const teams = program.command("teams").description("teams of an org");
  teams
    .command("list")
    .description("teams of an org (all for an org admin, yours otherwise)")
    .argument("<org>", "org id")
    .action(
      action(async (ctx, org) => {
        const body = await (await ctx.api()).get(`/api/orgs/${enc(org!)}/teams`);
        ctx.out.show(body, (d) =>
          table(d.teams as any[], [
            { header: "ID", get: (t) => t.id },
            { header: "NAME", get: (t) => t.name },
            { header: "STATUS", get: (t) => t.status },
            { header: "BOARD", get: (t) => t.board_mode },
          ]),
        );
      }),
    );
  teams
    .command("status")
    .description("set a team's status (org admin)")
    .argument("<team>", "team id")
    .addArgument(new Argument("<status>", "the new status").choices(TEAM_STATUSES))
    .action(
      action(async (ctx, team, status) => {
        const body = await (await ctx.api()).patch(`/api/teams/${enc(team!)}`, { status });
        ctx.out.show(body, (t) => fields(t, ["id", "name", "status", "updated_at"]));
      }),
    );
  teams
    .command("board")
    .description(
      "set the team's board (team admin): off (the issue lanes launch directly), track (they keep one card per issue following its run) or coordinate (the issue's card is the work, launched by the board); with the board on, an untrusted author's issue waits on it as a needs:approval card",
    )
    .argument("<team>", "team id")
    .addArgument(new Argument("<mode>", "the board's mode").choices(BOARD_MODES))
    .action(
      action(async (ctx, team, board_mode) => {
        const body = await (await ctx.api()).patch(`/api/teams/${enc(team!)}`, { board_mode });
        ctx.out.show(body, (t) => fields(t, ["id", "name", "board_mode", "updated_at"]));
      }),
    );
}
