import { sql, type Insertable, type Selectable, type Updateable } from "kysely";
import type { Db } from "./db.js";
import type { BoardCardsTable, BoardColumn } from "./schema/launch-surfaces.js";

export type BoardCardRow = Selectable<BoardCardsTable>;

/** What a new card is given; the dispatcher's state (attempts, lease, run, last error) starts empty. */
export type NewCard = Pick<
  BoardCardRow,
  | "id"
  | "team_id"
  | "title"
  | "body"
  | "labels"
  | "column"
  | "provenance"
  | "source_issue_ref"
  | "bot_id"
  | "vars"
  | "repo_url"
  | "repo_ref"
  | "project_path"
  | "webhook_id"
> & { run_id?: string | null; now: number };

/** A new card's row, every column named. */
export function newCardRow({ now, run_id = null, ...card }: NewCard): BoardCardRow {
  return { ...card, attempts: 0, next_attempt_at: 0, lease_until: 0, run_id, last_error: null, created_at: now, updated_at: now };
}

export async function insertCard(db: Db, row: Insertable<BoardCardsTable>): Promise<void> {
  await db.insertInto("board_cards").values(row).execute();
}

export function findCard(db: Db, teamId: string, id: string): Promise<BoardCardRow | undefined> {
  return db.selectFrom("board_cards").selectAll().where("id", "=", id).where("team_id", "=", teamId).executeTakeFirst();
}

export function findCardByIssue(db: Db, teamId: string, issueRef: string): Promise<BoardCardRow | undefined> {
  return db.selectFrom("board_cards").selectAll().where("team_id", "=", teamId).where("source_issue_ref", "=", issueRef).executeTakeFirst();
}

export function listCards(db: Db, teamId: string, column: BoardColumn | undefined, limit: number): Promise<BoardCardRow[]> {
  let q = db.selectFrom("board_cards").selectAll().where("team_id", "=", teamId);
  if (column) q = q.where("column", "=", column);
  return q.orderBy("created_at").orderBy("id").limit(limit).execute();
}

/** Changes a card only while it is in one of `from`; false when it moved first. */
export async function updateCard(db: Db, id: string, from: readonly BoardColumn[], patch: Updateable<BoardCardsTable>): Promise<boolean> {
  const r = await db.updateTable("board_cards").set(patch).where("id", "=", id).where("column", "in", from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The patch applied only while the card's labels are still those read (a compare-and-set); false when they moved meanwhile. */
export async function updateCardIfUnchanged(db: Db, card: Pick<BoardCardRow, "id" | "labels">, patch: Updateable<BoardCardsTable>): Promise<boolean> {
  const r = await db.updateTable("board_cards").set(patch).where("id", "=", card.id).where("labels", "=", card.labels).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Leases ready cards that are due and not waiting for approval, oldest first: each goes to one
 * dispatcher until `leaseUntil`. The lease is taken by a conditional update per card, so two
 * replicas never hold the same card.
 */
export async function leaseReadyCards(db: Db, now: number, leaseUntil: number, limit: number): Promise<BoardCardRow[]> {
  const due = await db
    .selectFrom("board_cards")
    .select("id")
    .where("column", "=", "ready")
    .where("next_attempt_at", "<=", now)
    .where("lease_until", "<=", now)
    .where(sql<boolean>`labels not like '%"needs:approval"%'`)
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  const leased: BoardCardRow[] = [];
  for (const { id } of due) {
    const row = await db
      .updateTable("board_cards")
      .set({ lease_until: leaseUntil })
      .where("id", "=", id)
      .where("column", "=", "ready")
      .where("lease_until", "<=", now)
      .returningAll()
      .executeTakeFirst();
    if (row) leased.push(row);
  }
  return leased;
}

/** Running cards whose run has ended, with the run's status. */
export function cardsWithEndedRuns(db: Db, limit: number) {
  return db
    .selectFrom("board_cards")
    .innerJoin("runs", "runs.id", "board_cards.run_id")
    .select(["board_cards.id as id", "board_cards.run_id as run_id", "runs.status as run_status"])
    .where("board_cards.column", "=", "running")
    .where("runs.status", "in", ["succeeded", "failed", "cancelled"])
    .limit(limit)
    .execute();
}

/** Moves an issue's card to running with its newest run (a tracked launch). */
export async function trackCard(db: Db, teamId: string, issueRef: string, runId: string, now: number): Promise<void> {
  await db
    .updateTable("board_cards")
    .set({ column: "running", provenance: "issue_label", run_id: runId, lease_until: 0, last_error: null, updated_at: now })
    .where("team_id", "=", teamId)
    .where("source_issue_ref", "=", issueRef)
    .execute();
}
