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

export interface IntakeTables {
  webhook_buckets: WebhookBucketsTable;
  webhook_call_counters: WebhookCallCountersTable;
}
