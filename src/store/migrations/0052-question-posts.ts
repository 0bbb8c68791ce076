import type { Kysely, Migration } from "kysely";

/**
 * A webhook's `post_questions` (off by default): a question its run asks is also posted on the
 * pull request's (merge request's) thread. The outbox of those posts: one row per question (run,
 * attempt), sent by the reporting sweep with backoff.
 */
export const m0052QuestionPosts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("webhooks")
      .addColumn("post_questions", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable("run_question_posts")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      // When to send next; null once posted, given up, or no longer asked.
      .addColumn("due_at", "bigint")
      .addColumn("tries", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("comment_id", "text")
      .addColumn("last_error", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("posted_at", "bigint")
      .addPrimaryKeyConstraint("run_question_posts_pk", ["run_id", "attempt"])
      .execute();
    await db.schema.createIndex("run_question_posts_due").on("run_question_posts").column("due_at").execute();
  },
};
