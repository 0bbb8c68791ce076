import type { Clock } from "../core/clock.js";
import { invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { KnownBots } from "../runs/runs-api.js";
import * as q from "../store/schedules.js";
import type { Db, Store } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { checkCron, nextOccurrence } from "./next-occurrence.js";
import { iso } from "../core/iso.js";
import { auditedWrite, launchTargetColumns, launchTargetView, type LaunchTargetInput } from "./surface-fields.js";

export interface ScheduleInput extends LaunchTargetInput {
  cron?: string;
  timezone?: string;
}

export function scheduleView(r: q.ScheduleRow) {
  return {
    ...launchTargetView(r),
    cron: r.cron,
    timezone: r.timezone,
    next_run_at: iso(r.next_run_at),
    last_run_at: iso(r.last_run_at),
    last_run_id: r.last_run_id,
  };
}

/**
 * A team's cron schedules: members read, team admins write. Each occurrence launches once
 * through the gate under the `cloud-scheduler` identity ({@link Scheduler}).
 */
export class ScheduleService {
  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator; access: Access; audit: AuditLog; bots: KnownBots }) {}

  async list(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await q.listTeamSchedules(this.deps.store.db, teamId)).map(scheduleView);
  }

  async get(p: Principal, teamId: string, id: string) {
    await this.deps.access.team(p, teamId, "member");
    return scheduleView(await this.find(teamId, id));
  }

  async create(p: Principal, teamId: string, input: ScheduleInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (input.name === undefined || input.cron === undefined || input.bot === undefined) throw invalid("name", "a schedule needs name, cron and bot");
    const now = this.deps.clock.now();
    const cron = input.cron.trim();
    const timezone = input.timezone ?? "UTC";
    checkCron(cron, timezone);
    const target = await launchTargetColumns(input, team.org_id, this.deps.bots);
    const enabled = input.enabled ?? true;
    const row = {
      id: this.deps.ids.next("sch"),
      team_id: teamId,
      name: target.name!,
      cron,
      timezone,
      bot_id: input.bot,
      vars: target.vars ?? "{}",
      repo_url: target.repo_url ?? null,
      repo_ref: target.repo_ref ?? null,
      project_path: target.project_path ?? null,
      enabled: enabled ? 1 : 0,
      next_run_at: enabled ? nextOccurrence(cron, timezone, now) : null,
      last_run_at: null,
      last_run_id: null,
      last_error: null,
      last_error_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.write(p, "schedule.create", row.id, teamId, (db) => q.insertSchedule(db, row));
    return scheduleView(row);
  }

  async update(p: Principal, teamId: string, id: string, input: ScheduleInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    const current = await this.find(teamId, id);
    const now = this.deps.clock.now();
    const cron = input.cron?.trim() ?? current.cron;
    const timezone = input.timezone ?? current.timezone;
    checkCron(cron, timezone);
    const patch = { ...(await launchTargetColumns(input, team.org_id, this.deps.bots)), cron, timezone, updated_at: now };
    const enabled = (patch.enabled ?? current.enabled) === 1;
    // A changed timing, or a schedule enabled again, runs next at its next occurrence from now.
    const retimed = cron !== current.cron || timezone !== current.timezone || (enabled && current.enabled === 0);
    const next_run_at = !enabled ? null : retimed ? nextOccurrence(cron, timezone, now) : current.next_run_at;
    await this.write(p, "schedule.update", id, teamId, (db) => q.updateSchedule(db, id, { ...patch, next_run_at }));
    return scheduleView(await this.find(teamId, id));
  }

  async remove(p: Principal, teamId: string, id: string): Promise<void> {
    await this.deps.access.team(p, teamId, "admin");
    await this.find(teamId, id);
    await this.write(p, "schedule.delete", id, teamId, (db) => q.deleteSchedule(db, id));
  }

  private async find(teamId: string, id: string): Promise<q.ScheduleRow> {
    const row = await q.findSchedule(this.deps.store.db, teamId, id);
    if (!row) throw notFound("schedule");
    return row;
  }

  private write(p: Principal, action: string, id: string, teamId: string, fn: (db: Db) => Promise<void>) {
    return auditedWrite(this.deps, p, { type: "schedule", id, teamId, action, nameTaken: "the team has a schedule of that name" }, fn);
  }
}
