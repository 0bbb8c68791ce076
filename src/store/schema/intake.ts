/** Per-webhook delivery bucket: tokens left at updated_at (epoch ms). */
export interface WebhookBucketsTable {
  webhook_id: string;
  tokens: number;
  updated_at: number;
}

/** Monthly webhook calls per scope (`org:<id>` or `webhook:<id>`) and UTC month (YYYY-MM). */
export interface WebhookCallCountersTable {
  scope: string;
  month: string;
  calls: number;
}

/** A synchronize launch parked for the debounce; its delivery row is `accepted` until it launches. */
export interface ParkedLaunchesTable {
  delivery_id: string;
  tenant_id: string;
  webhook_id: string;
  bot_id: string;
  subject_id: string;
  /** The forge's event time (epoch ms; the arrival time when the payload gives none). */
  event_ms: number;
  arrived_at: number;
  first_parked_at: number;
  /** When the sweep may launch it: the quiet window after the last push, capped by the maximum wait. */
  fire_at: number;
  /** Launches the gate refused for now (concurrency, launch rate). */
  attempts: number;
  /** A sweep that took it holds it until then. */
  lease_until: number;
  /** The launch, as JSON (a `LaunchPlan`, intake/delivery-decision.ts). */
  plan: string;
}

export interface IntakeTables {
  webhook_buckets: WebhookBucketsTable;
  webhook_call_counters: WebhookCallCountersTable;
  parked_launches: ParkedLaunchesTable;
}
