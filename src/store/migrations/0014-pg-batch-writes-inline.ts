import type { Migration } from "kysely";

// Replaced deliver_webhook_calls, which now lives in src/store/postgres/deliver-webhook-calls.sql.
export const m0014PgBatchWritesInline: Migration = { async up() {} };
