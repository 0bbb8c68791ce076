/** A team's cron schedule (store/schedules.ts). */
export interface SchedulesTable {
  id: string;
  team_id: string;
  name: string;
  cron: string;
  timezone: string;
  bot_id: string;
  /** JSON object of run variables. */
  vars: string;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
  enabled: number;
  /** The occurrence the scheduler launches next; null while disabled. */
  next_run_at: number | null;
  last_run_at: number | null;
  last_run_id: string | null;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A team's subscription to a custom event (store/triggers.ts). */
export interface TriggerSubscriptionsTable {
  id: string;
  team_id: string;
  name: string;
  event: string;
  /** JSON object: payload path → the value it must equal. */
  filter: string;
  bot_id: string;
  /** JSON object of run variables, `{{payload.path}}` filled from the event. */
  vars: string;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
  enabled: number;
  last_run_id: string | null;
  last_launched_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One subscription's launch for one emit's idempotency key. */
export interface TriggerLaunchesTable {
  team_id: string;
  idempotency_key: string;
  subscription_id: string;
  run_id: string;
  created_at: number;
}

export interface LaunchSurfaceTables {
  schedules: SchedulesTable;
  trigger_subscriptions: TriggerSubscriptionsTable;
  trigger_launches: TriggerLaunchesTable;
}
