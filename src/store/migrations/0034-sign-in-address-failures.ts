import type { Kysely, Migration } from "kysely";

/** Failed sign-ins per client address in fixed windows, held in the store so every replica counts the same failures. */
export const m0034SignInAddressFailures: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("sign_in_address_failures")
      .addColumn("address", "text", (c) => c.primaryKey())
      .addColumn("window_start", "bigint", (c) => c.notNull())
      .addColumn("failures", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sign_in_address_failures_window").on("sign_in_address_failures").column("window_start").execute();
  },
};
