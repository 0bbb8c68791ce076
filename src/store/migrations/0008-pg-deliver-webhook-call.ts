import type { Migration } from "kysely";

// Created deliver_webhook_call, superseded by src/store/postgres/deliver-webhook-calls.sql and dropped (0016).
export const m0008PgDeliverWebhookCall: Migration = { async up() {} };
