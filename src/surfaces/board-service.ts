import { checkLine, checkText } from "../core/names.js";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { iso } from "../core/iso.js";
import type { KnownBots } from "../runs/runs-api.js";
import * as q from "../store/board.js";
import type { BoardColumn } from "../store/schema/launch-surfaces.js";
import type { Store } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";
import { list, word } from "../webhooks/field-parsers.js";
import { launchTargetColumns, type LaunchTargetInput } from "./surface-fields.js";

/** The label that keeps a card from being dispatched until a team admin approves it. */
export const NEEDS_APPROVAL = "needs:approval";

/**
 * A card's approval, on the board or from the forge (`/approve` on its issue): needs:approval
 * lifted, and the approver's variables added; undefined when the card is not waiting for one.
 */
export function approvalOf(card: Pick<q.BoardCardRow, "labels" | "vars">, now: number, vars: Record<string, string> = {}) {
  const labels = JSON.parse(card.labels) as string[];
  if (!labels.includes(NEEDS_APPROVAL)) return undefined;
  return {
    labels: JSON.stringify(labels.filter((l) => l !== NEEDS_APPROVAL)),
    ...(Object.keys(vars).length > 0 && { vars: JSON.stringify({ ...(JSON.parse(card.vars) as Record<string, string>), ...vars }) }),
    provenance: "approved",
    updated_at: now,
  };
}
/** Columns a person may move a card to; `running` is the dispatcher's alone. */
const MOVABLE: readonly BoardColumn[] = ["backlog", "ready", "done", "blocked"];
const TITLE_MAX = 500;
const BODY_MAX = 64 * 1024;

export interface CardInput extends Omit<LaunchTargetInput, "name" | "enabled"> {
  title: string;
  body?: string;
  labels?: string[];
  column?: "backlog" | "ready";
}

export function cardView(r: q.BoardCardRow) {
  return {
    id: r.id,
    team_id: r.team_id,
    title: r.title,
    body: r.body,
    labels: JSON.parse(r.labels) as string[],
    column: r.column,
    provenance: r.provenance,
    source_issue_ref: r.source_issue_ref,
    bot: r.bot_id,
    vars: JSON.parse(r.vars) as Record<string, string>,
    repo_url: r.repo_url,
    repo_ref: r.repo_ref,
    project_path: r.project_path,
    attempts: r.attempts,
    next_attempt_at: iso(r.next_attempt_at || null),
    run_id: r.run_id,
    last_error: r.last_error,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/**
 * A team's board: members add, read, move and retry cards; team admins approve the ones that wait
 * for approval. The board dispatcher launches ready cards ({@link BoardDispatcher}).
 */
export class BoardService {
  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator; access: Access; bots: KnownBots }) {}

  async list(p: Principal, teamId: string, column?: BoardColumn, limit = 200) {
    await this.deps.access.team(p, teamId, "member");
    return (await q.listCards(this.deps.store.db, teamId, column, limit)).map(cardView);
  }

  async get(p: Principal, teamId: string, id: string) {
    await this.deps.access.team(p, teamId, "member");
    return cardView(await this.find(teamId, id));
  }

  async create(p: Principal, teamId: string, input: CardInput) {
    const { team } = await this.deps.access.team(p, teamId, "member");
    if (!input.bot) throw invalid("bot", "a card needs the bot that works on it");
    const target = await launchTargetColumns(input, team.org_id, this.deps.bots);
    const now = this.deps.clock.now();
    const row = q.newCardRow({
      id: this.deps.ids.next("card"),
      team_id: teamId,
      title: text(input.title, "title", TITLE_MAX),
      body: input.body === undefined ? "" : text(input.body, "body", BODY_MAX, true),
      labels: JSON.stringify(input.labels === undefined ? [] : list(word)(input.labels, "labels")),
      column: input.column ?? "ready",
      provenance: "created",
      source_issue_ref: null,
      bot_id: input.bot,
      vars: target.vars ?? "{}",
      repo_url: target.repo_url ?? null,
      repo_ref: target.repo_ref ?? null,
      project_path: target.project_path ?? null,
      webhook_id: null,
      now,
    });
    await q.insertCard(this.deps.store.db, row);
    return cardView(row);
  }

  /** Moves a card between the columns a person may use; a running card stays the dispatcher's. */
  async move(p: Principal, teamId: string, id: string, column: BoardColumn) {
    await this.deps.access.team(p, teamId, "member");
    if (!MOVABLE.includes(column)) throw invalid("column", `a card can be moved to ${MOVABLE.join(", ")}`);
    await this.find(teamId, id);
    const moved = await q.updateCard(this.deps.store.db, id, MOVABLE, {
      column,
      provenance: "moved",
      ...(column === "ready" && { attempts: 0, next_attempt_at: 0, last_error: null }),
      updated_at: this.deps.clock.now(),
    });
    if (!moved) throw conflict("the card is running; it moves when its run ends");
    return cardView(await this.find(teamId, id));
  }

  /** A blocked card back to ready with its attempts reset. */
  async retry(p: Principal, teamId: string, id: string) {
    await this.deps.access.team(p, teamId, "member");
    await this.find(teamId, id);
    const now = this.deps.clock.now();
    const patch = { column: "ready" as const, provenance: "retried", attempts: 0, next_attempt_at: 0, last_error: null, run_id: null, updated_at: now };
    if (!(await q.updateCard(this.deps.store.db, id, ["blocked"], patch))) throw conflict("only a blocked card can be retried");
    return cardView(await this.find(teamId, id));
  }

  /** Lifts `needs:approval` (team admin): the card is dispatched when ready. */
  async approve(p: Principal, teamId: string, id: string) {
    await this.deps.access.team(p, teamId, "admin");
    const patch = approvalOf(await this.find(teamId, id), this.deps.clock.now());
    if (!patch) throw conflict(`the card is not waiting for approval (${NEEDS_APPROVAL})`);
    await q.updateCard(this.deps.store.db, id, MOVABLE, patch);
    return cardView(await this.find(teamId, id));
  }

  private async find(teamId: string, id: string): Promise<q.BoardCardRow> {
    const row = await q.findCard(this.deps.store.db, teamId, id);
    if (!row) throw notFound("card");
    return row;
  }
}

function text(v: string, field: string, max: number, multiline = false): string {
  const s = multiline ? v : v.trim();
  if ((!multiline && s.length === 0) || s.length > max) throw invalid(field, `${field} must be ${multiline ? 0 : 1}-${max} characters`);
  if (s.includes("\u0000")) throw invalid(field, `${field} contains a NUL character`);
  return multiline ? checkText(s, field) : checkLine(s, field);
}
