import type { Migration } from "kysely";

// Created admit_webhook_call, which now lives in src/store/postgres/admit-webhook-call.sql.
export const m0005PgCallAdmission: Migration = { async up() {} };
