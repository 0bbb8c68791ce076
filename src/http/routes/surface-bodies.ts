// Success bodies of schedules, trigger subscriptions and emits, and board cards.
import { Type } from "typebox";
import { Enum, Int, MaybeStr, MaybeTime, Nullable, Obj, Str, Time } from "./body-schema.js";

/** The fields a schedule and a trigger subscription share (surface-fields.ts launchTargetView). */
export const LaunchTarget = {
  id: Str,
  team_id: Str,
  name: Str,
  bot: Str,
  vars: Type.Record(Type.String(), Type.String()),
  repo_url: MaybeStr,
  repo_ref: MaybeStr,
  project_path: MaybeStr,
  enabled: Type.Boolean(),
  last_error: Nullable(Type.String({ description: "Why its last launch was refused or failed; cleared by the next launch" })),
  last_error_at: MaybeTime,
  created_at: Time,
  updated_at: Time,
};

export const Schedule = Obj(
  {
    ...LaunchTarget,
    cron: Str,
    timezone: Str,
    next_run_at: MaybeTime,
    last_run_at: MaybeTime,
    last_run_id: MaybeStr,
  },
  { $id: "Schedule", description: "A cron schedule that launches a bot" },
);

export const Trigger = Obj(
  {
    ...LaunchTarget,
    event: Str,
    filter: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    last_run_id: MaybeStr,
    last_launched_at: MaybeTime,
  },
  { $id: "Trigger", description: "A bot subscribed to a custom event" },
);

export const EmitAnswer = Obj(
  {
    event: Str,
    launches: Type.Array(
      Type.Union([
        Obj({ subscription_id: Str, status: Enum(["launched", "duplicate"] as const), run_id: Str }),
        Obj({ subscription_id: Str, status: Enum(["denied", "failed"] as const), error: Str, detail: Str }),
      ]),
    ),
  },
  { $id: "EmitAnswer", description: "An emitted event and what each subscription it matched did" },
);

export const Card = Obj(
  {
    id: Str,
    team_id: Str,
    title: Str,
    body: Str,
    labels: Type.Array(Str),
    column: Enum(["backlog", "ready", "running", "done", "blocked"] as const),
    provenance: Str,
    source_issue_ref: MaybeStr,
    bot: Str,
    vars: Type.Record(Type.String(), Type.String()),
    repo_url: MaybeStr,
    repo_ref: MaybeStr,
    project_path: MaybeStr,
    attempts: Int,
    next_attempt_at: MaybeTime,
    run_id: MaybeStr,
    last_error: MaybeStr,
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Card", description: "A board card" },
);
