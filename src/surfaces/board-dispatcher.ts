import type { Logger } from "pino";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { Periodic } from "../core/periodic.js";
import { cardsWithEndedRuns, leaseReadyCards, updateCard, type BoardCardRow } from "../store/board.js";
import type { Store } from "../store/store.js";

const SWEEP_EVERY_MS = 10_000;
const SWEEP_BATCH = 50;
/** A leased card is another dispatcher's for this long. */
const LEASE_MS = 60_000;
/** Refused dispatches before a card is filed blocked under `launch_given_up`. */
export const MAX_CARD_ATTEMPTS = 5;
/** The wait after the n-th refusal: 1, 2, 4, 8 minutes. */
const retryDelayMs = (attempts: number) => 60_000 * 2 ** (attempts - 1);

export type CardDispatch = "launched" | "launch_refused" | "launch_given_up" | "taken" | "failed";

/**
 * Launches the team boards' ready cards through the gate, as `board-dispatcher`: a card is leased
 * to one replica, moved to running with its run in the launch's own transaction, or returned to
 * ready with provenance `launch_refused` (tried again after a growing wait) and, past
 * {@link MAX_CARD_ATTEMPTS}, filed blocked under `launch_given_up`. Each pass also moves running
 * cards whose run ended to done (`run_succeeded`) or blocked (`run_failed`, `run_cancelled`).
 */
export class BoardDispatcher {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: { store: Store; clock: Clock; launcher: Launcher; log: Logger }) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.pass());
  }

  /** One pass now: what happened to each leased card. */
  dispatch(): Promise<Map<string, CardDispatch>> {
    return this.periodic.run() as Promise<Map<string, CardDispatch>>;
  }

  private async pass(): Promise<Map<string, CardDispatch>> {
    const { store, clock } = this.deps;
    await this.settleEnded();
    const now = clock.now();
    const leased = await store.tx((tx) => leaseReadyCards(tx, now, now + LEASE_MS, SWEEP_BATCH));
    const results = new Map<string, CardDispatch>();
    for (const card of leased) results.set(card.id, await this.launch(card));
    return results;
  }

  private async launch(card: BoardCardRow): Promise<CardDispatch> {
    const { store, clock, launcher, log } = this.deps;
    const now = clock.now();
    let refusal: string;
    try {
      const result = await launcher.launch(
        {
          teamId: card.team_id,
          botId: card.bot_id,
          vars: {
            ...(JSON.parse(card.vars) as Record<string, string>),
            card_id: card.id,
            ...(card.source_issue_ref && { source_issue_ref: card.source_issue_ref }),
          },
          repoUrl: card.repo_url,
          repoRef: card.repo_ref,
          projectPath: card.project_path,
          webhookId: card.webhook_id,
          source: "board",
          actor: { userId: null, kind: "board-dispatcher" },
        },
        // Moved to running with its run, unless it left ready meanwhile (moved by a person, or
        // leased twice after a lapsed lease): then `taken`, and nothing launched.
        { record: { card: { id: card.id } } },
      );
      if (result.kind === "launched" || result.kind === "taken") return result.kind;
      refusal = `${result.denial.error}: ${result.denial.detail}`;
    } catch (err) {
      if (!(err instanceof ServiceError)) {
        log.warn({ err, cardId: card.id }, "card dispatch failed; tried again when its lease lapses");
        return "failed";
      }
      refusal = err.message;
    }
    const attempts = card.attempts + 1;
    const givenUp = attempts >= MAX_CARD_ATTEMPTS;
    await store.tx((tx) =>
      updateCard(tx, card.id, ["ready"], {
        column: givenUp ? "blocked" : "ready",
        provenance: givenUp ? "launch_given_up" : "launch_refused",
        attempts,
        next_attempt_at: givenUp ? 0 : now + retryDelayMs(attempts),
        lease_until: 0,
        last_error: refusal,
        updated_at: now,
      }),
    );
    return givenUp ? "launch_given_up" : "launch_refused";
  }

  /** Running cards whose run ended: done when it succeeded, else blocked with the run's end as provenance. */
  private async settleEnded(): Promise<void> {
    const { store, clock } = this.deps;
    for (const ended of await cardsWithEndedRuns(store.db, SWEEP_BATCH)) {
      const done = ended.run_status === "succeeded";
      await updateCard(store.db, ended.id, ["running"], { column: done ? "done" : "blocked", provenance: `run_${ended.run_status}`, updated_at: clock.now() });
    }
  }
}
