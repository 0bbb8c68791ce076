import type { Migration } from "kysely";

// Created launch_delivery, a delivery's one-call launch, dropped by 0018 (a batch of one of deliver_webhook_calls now).
export const m0007PgLaunchDelivery: Migration = { async up() {} };
