import type { Kysely, Migration } from "kysely";

/**
 * Why the intake refused a delivery (`bad_signature`, `bad_token`, `no_secret`, or the invalid
 * decision's code), written with the row, so hook health counts signature refusals exactly.
 */
export const m0035DeliveryRefusalCode: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("webhook_deliveries").addColumn("refusal_code", "text").execute();
  },
};
