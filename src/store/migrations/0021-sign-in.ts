import type { Kysely, Migration } from "kysely";

/** Sign-in: a user's password and lockout state, their sessions, and single-use reset tokens. */
export const m0021SignIn: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("users").addColumn("password_hash", "text").execute();
    await db.schema.alterTable("users").addColumn("password_set_at", "bigint").execute();
    await db.schema
      .alterTable("users")
      .addColumn("password_change_required", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("users")
      .addColumn("failed_logins", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("users").addColumn("locked_until", "bigint").execute();

    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("fingerprint", "text", (c) => c.notNull().unique())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("password_change_required", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

    await db.schema
      .createTable("password_resets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("fingerprint", "text", (c) => c.notNull().unique())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .execute();
    await db.schema.createIndex("password_resets_user").on("password_resets").column("user_id").execute();
  },
};
