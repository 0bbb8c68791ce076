import type { NewRowDefaults } from "./new-row.js";

/** Timestamps are integer milliseconds since the epoch; booleans are 0/1; JSON is text. */

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "failed_resumable" | "cancelled";
/** Only these hold a concurrency slot. */
export const ACTIVE_RUN_STATUSES = ["queued", "running"] as const satisfies readonly RunStatus[];

/** A run is also its queue entry: status `queued` is "published", a runner claims it with a lease. */
export interface RunsTable {
  id: string;
  org_id: string;
  team_id: string;
  bot_id: string;
  status: RunStatus;
  /** JSON object of string → string. */
  vars: string;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
  connection_id: string | null;
  subject_id: string | null;
  parent_subject_id: string | null;
  webhook_id: string | null;
  delivery_id: string | null;
  /** `api`, `webhook`, `resume`, … */
  source: string;
  actor_user_id: string | null;
  actor_kind: string;
  /** Current execution attempt, from 1; a resume adds one. */
  attempt: number;
  /** Highest attempt counted in the month's run count (org_run_tallies): a re-published attempt does not count twice. */
  metered_attempt: number;
  /** 1 while this run's launch is counted; the hand-back flips it to 0 exactly once. */
  metered: number;
  /** The UTC month the counted launch was charged to, so a hand-back decrements that row. */
  metered_month: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  cancel_requested: number;
  claim_token: string | null;
  claimed_by: string | null;
  lease_expires_at: number | null;
  /** When the retry sweeper resumes this failed_resumable run; null when no retry is armed. */
  retry_at: number | null;
  /** Automatic (usage-window) retries so far. */
  auto_retries: number;
  /** Times its runner stopped heartbeating under it: a run that keeps killing runners is parked. */
  runner_losses: number;
  /** Set while the run waits on the dead-letter queue. */
  dead_lettered_at: number | null;
  dead_letter_reason: string | null;
  /** When the run (or its latest resume) entered the queue; claims take the oldest first. */
  queued_at: number;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** JSON `{text, choices?}`: what the bot asked when its attempt ended waiting for a person. */
  question: string | null;
  /** A person's answer, handed to the next attempt (BOT_ANSWER and stdin). */
  answer: string | null;
  /** The bot's last `{"summary": …}` line of its latest attempt. */
  summary: string | null;
}

/** A new run's columns with their defaults ({@link NewRowDefaults}): its first attempt, nothing metered, retried or lost yet. */
export const NEW_RUN = {
  id: null,
  org_id: null,
  team_id: null,
  bot_id: null,
  status: null,
  vars: null,
  repo_url: null,
  repo_ref: null,
  project_path: null,
  connection_id: null,
  subject_id: null,
  parent_subject_id: null,
  webhook_id: null,
  delivery_id: null,
  source: null,
  actor_user_id: null,
  actor_kind: null,
  attempt: 1,
  metered_attempt: 0,
  metered: 0,
  metered_month: null,
  retry_at: null,
  auto_retries: 0,
  runner_losses: 0,
  dead_lettered_at: null,
  dead_letter_reason: null,
  failure_code: null,
  failure_detail: null,
  cancel_requested: 0,
  claim_token: null,
  claimed_by: null,
  lease_expires_at: null,
  queued_at: null,
  created_at: null,
  updated_at: null,
  started_at: null,
  finished_at: null,
  question: null,
  answer: null,
  summary: null,
} satisfies NewRowDefaults<RunsTable>;

export interface RunAttemptsTable {
  id: string;
  run_id: string;
  number: number;
  status: RunStatus;
  claimed_by: string | null;
  /** The runner token whose runner claimed the attempt; null for the service's in-process runner. */
  runner_id: string | null;
  started_at: number | null;
  finished_at: number | null;
  failure_code: string | null;
}

/** A runner's token: only its salted hash, fingerprint and last 4 characters are kept. */
export interface RunnerTokensTable {
  id: string;
  pool: "platform" | "org";
  /** The org whose pool it is in; null in the platform's pool. */
  org_id: string | null;
  name: string;
  fingerprint: string;
  hash: string;
  last4: string;
  created_by: string;
  created_at: number;
  rotated_at: number | null;
  last_seen_at: number | null;
  revoked_at: number | null;
}

/** One usage report of an attempt; unique per (run, report_id) so a repeated report counts once. */
export interface RunUsageEventsTable {
  id: string;
  run_id: string;
  attempt: number;
  report_id: string;
  org_id: string;
  team_id: string;
  month: string;
  cost_micro: number;
  input_tokens: number;
  output_tokens: number;
  aggregate_tokens: number;
  fingerprint: string | null;
  provider: string | null;
  tier: string | null;
  /** Forge slug (owner/repo) of the targeted repository; empty when unknown. */
  repo: string;
  amount_type: "metered" | "estimate";
  created_at: number;
}

/** How much an attempt printed (its output's byte length), and of it how much sits in the kept tail and how much was dropped. */
export interface RunLogsTable {
  run_id: string;
  attempt: number;
  produced_bytes: number;
  tail_bytes: number;
  dropped_bytes: number;
  created_at: number;
  updated_at: number;
}

/** A kept piece of an attempt's output, at its byte offset in all the attempt printed. */
export interface RunLogChunksTable {
  run_id: string;
  attempt: number;
  start: number;
  bytes: number;
  stream: "stdout" | "stderr";
  text: string;
}

/** A run's state as the forge should show it, and what it last accepted (the outbox a sweeper drains). */
export interface RunStatusReportsTable {
  run_id: string;
  webhook_id: string;
  /** pending, success, failure or error. */
  state: string;
  description: string;
  /** `state|description` the forge last accepted; null before the first. */
  reported_key: string | null;
  /** GitHub App connections: the check run created for the run, updated after. */
  check_run_id: string | null;
  tries: number;
  /** When to send next; null when the forge shows the state already (or gave up). */
  due_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** A question a run asked, to be posted on its pull request's thread (a webhook's post_questions). */
export interface RunQuestionPostsTable {
  run_id: string;
  /** The attempt that asked. */
  attempt: number;
  webhook_id: string;
  /** When to send next; null once posted, given up, or no longer asked. */
  due_at: number | null;
  tries: number;
  /** The forge's id for the posted comment. */
  comment_id: string | null;
  last_error: string | null;
  created_at: number;
  posted_at: number | null;
}

/** Per-team launch-rate bucket; tokens are in 1/60000 of a launch so the refill stays integral. */
export interface TeamLaunchBucketsTable {
  team_id: string;
  tokens: number;
  updated_at: number;
}

export interface RunsTables {
  runs: RunsTable;
  run_attempts: RunAttemptsTable;
  runner_tokens: RunnerTokensTable;
  run_usage_events: RunUsageEventsTable;
  team_launch_buckets: TeamLaunchBucketsTable;
  run_logs: RunLogsTable;
  run_log_chunks: RunLogChunksTable;
  run_status_reports: RunStatusReportsTable;
  run_question_posts: RunQuestionPostsTable;
}
