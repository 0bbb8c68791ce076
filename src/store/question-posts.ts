import type { Db } from "./db.js";

/**
 * Notes the question the run's attempt `attempt` asked, to be posted on its thread, when the
 * run's webhook asks for that (`post_questions`); noting it again changes nothing. In the
 * transaction that ends the attempt.
 */
export async function noteQuestionPost(db: Db, runId: string, attempt: number, now: number): Promise<void> {
  await db
    .insertInto("run_question_posts")
    .columns(["run_id", "attempt", "webhook_id", "due_at", "tries", "created_at"])
    .expression((eb) =>
      eb
        .selectFrom("runs as r")
        .innerJoin("webhooks as w", "w.id", "r.webhook_id")
        .select(["r.id", eb.val(attempt).as("attempt"), "w.id as webhook_id", eb.val(now).as("due_at"), eb.val(0).as("tries"), eb.val(now).as("created_at")])
        .where("r.id", "=", runId)
        .where("w.post_questions", "=", 1),
    )
    .onConflict((oc) => oc.columns(["run_id", "attempt"]).doNothing())
    .execute();
}

/** A due post with what it needs: the run as it is now. */
export function dueQuestionPosts(db: Db, now: number, limit: number) {
  return db
    .selectFrom("run_question_posts as q")
    .innerJoin("runs as r", "r.id", "q.run_id")
    .select([
      "q.run_id",
      "q.attempt",
      "q.webhook_id",
      "q.due_at",
      "q.tries",
      "r.status",
      "r.attempt as run_attempt",
      "r.question",
      "r.bot_id",
      "r.vars",
      "r.project_path",
      "r.subject_id",
      "r.parent_subject_id",
    ])
    .where("q.due_at", "<=", now)
    .orderBy("q.due_at")
    .limit(limit)
    .execute();
}

/** Takes a due post for `until` (another replica passes it by meanwhile); false when another took it first. */
export async function takeQuestionPost(db: Db, runId: string, attempt: number, dueAt: number, until: number): Promise<boolean> {
  const r = await db
    .updateTable("run_question_posts")
    .set({ due_at: until })
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .where("due_at", "=", dueAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Posted (`commentId`), or dropped (null: the run no longer asks it). */
export async function markQuestionPosted(db: Db, runId: string, attempt: number, commentId: string | null, now: number): Promise<void> {
  await db
    .updateTable("run_question_posts")
    .set({ due_at: null, comment_id: commentId, posted_at: commentId === null ? null : now, last_error: null })
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .execute();
}

/** A failed send: tried again at `dueAt`, or given up (null). */
export async function markQuestionPostFailed(db: Db, runId: string, attempt: number, f: { tries: number; dueAt: number | null; error: string }): Promise<void> {
  await db
    .updateTable("run_question_posts")
    .set({ due_at: f.dueAt, tries: f.tries, last_error: f.error.slice(0, 500) })
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .execute();
}

export function findQuestionPosts(db: Db, runId: string) {
  return db.selectFrom("run_question_posts").selectAll().where("run_id", "=", runId).orderBy("attempt").execute();
}

export async function deleteQuestionPosts(db: Db, runId: string): Promise<void> {
  await db.deleteFrom("run_question_posts").where("run_id", "=", runId).execute();
}
