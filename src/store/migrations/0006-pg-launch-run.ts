import type { Migration } from "kysely";

// Created launch_run, superseded by launch_delivery (0007) and dropped (0016).
export const m0006PgLaunchRun: Migration = { async up() {} };
