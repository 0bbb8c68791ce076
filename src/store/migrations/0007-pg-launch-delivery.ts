import type { Migration } from "kysely";

// Created launch_delivery, which now lives in src/store/postgres/launch-delivery.sql.
export const m0007PgLaunchDelivery: Migration = { async up() {} };
