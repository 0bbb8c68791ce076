import type { Migration } from "kysely";

// Created launch_run, superseded by src/store/postgres/launch-delivery.sql and dropped (0016).
export const m0006PgLaunchRun: Migration = { async up() {} };
