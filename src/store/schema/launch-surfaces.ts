/** What a schedule, a subscription and a card launch: the bot and the run's fields. */
export interface LaunchTargetColumns {
  bot_id: string;
  /** JSON object of run variables (a subscription's may hold `{{payload.path}}`). */
  vars: string;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
}

/** A team's cron schedule (store/schedules.ts). */
export interface SchedulesTable extends LaunchTargetColumns {
  id: string;
  team_id: string;
  name: string;
  cron: string;
  timezone: string;
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
export interface TriggerSubscriptionsTable extends LaunchTargetColumns {
  id: string;
  team_id: string;
  name: string;
  event: string;
  /** JSON object: payload path → the value it must equal. */
  filter: string;
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

export type BoardColumn = "backlog" | "ready" | "running" | "done" | "blocked";

/** A card of a team's board (store/board.ts). */
export interface BoardCardsTable extends LaunchTargetColumns {
  id: string;
  team_id: string;
  title: string;
  body: string;
  /** JSON array of labels; `needs:approval` keeps a card from being dispatched. */
  labels: string;
  column: BoardColumn;
  /** Why the card is where it is: created, issue_label, launch_refused, launch_given_up, approved, run_succeeded, … */
  provenance: string;
  source_issue_ref: string | null;
  webhook_id: string | null;
  /** Dispatches the gate refused since the card was last made ready. */
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  run_id: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface LaunchSurfaceTables {
  board_cards: BoardCardsTable;
  schedules: SchedulesTable;
  trigger_subscriptions: TriggerSubscriptionsTable;
  trigger_launches: TriggerLaunchesTable;
}
