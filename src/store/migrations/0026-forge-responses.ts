import type { Kysely, Migration } from "kysely";

/** Per-webhook switches for what the service says on the forge: 👀 on an accepted command, a reply explaining a refusal. */
export const m0026ForgeResponses: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("webhooks")
      .addColumn("acknowledge_commands", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("webhooks")
      .addColumn("explain_refusals", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
