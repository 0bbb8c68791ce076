import type { Migration } from "kysely";

// Created launch_run, superseded by src/store/postgres/launch-delivery.sql and dropped (0015).
export const m0006PgLaunchRun: Migration = { async up() {} };
