import type { Migration } from "kysely";

// Created admit_webhook_calls and deliver_webhook_calls, which now live in src/store/postgres/, and write_webhook_delivery, dropped (0016).
export const m0012PgDeliverInBatches: Migration = { async up() {} };
