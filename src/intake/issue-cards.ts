import type { LaunchDenial } from "../admission/decide-launch.js";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { type BoardCardRow, findCardByIssue, insertCard, newCardRow, trackCard, updateCardIfUnchanged } from "../store/board.js";
import { isUniqueViolation } from "../store/errors.js";
import type { Store } from "../store/store.js";
import type { WebhookConfig } from "../webhooks/webhook-config.js";
import type { LaunchPlan } from "./pipeline/launch-plan.js";
import { approvalOf, NEEDS_APPROVAL } from "../surfaces/board-service.js";

export type Carded = { kind: "carded"; cardId: string; created: boolean } | { kind: "denied"; denial: LaunchDenial };

/**
 * An issue lane's launches and the team's board (a webhook's `board_mode`): `track` keeps one
 * card per issue following its runs; `coordinate` makes the card the work — the delivery is
 * pre-checked against the gate, and the board dispatcher launches and meters the card.
 */
export class IssueCards {
  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator; launcher: Launcher }) {}

  /** The card of a tracked launch: created running with its run, or moved to running with the new one. */
  async track(config: WebhookConfig, plan: LaunchPlan, runId: string): Promise<void> {
    if (!plan.card) return;
    const now = this.deps.clock.now();
    const created = await this.insert(config, plan, { column: "running", run_id: runId }, now);
    if (!created) await trackCard(this.deps.store.db, config.tenant_id, plan.card.issueRef, runId, now);
  }

  /** The issue's card put on the board ready, once per issue, when the gate would admit a launch now. */
  async coordinate(config: WebhookConfig, plan: LaunchPlan): Promise<Carded> {
    const denial = await this.deps.launcher.precheck(config.tenant_id, false);
    return denial ? { kind: "denied", denial } : this.place(config, plan, []);
  }

  /** An untrusted author's issue: its card waits, ready but labelled needs:approval (it launches nothing yet, so no pre-check). */
  parkForApproval(config: WebhookConfig, plan: LaunchPlan): Promise<Extract<Carded, { kind: "carded" }>> {
    return this.place(config, plan, [NEEDS_APPROVAL]);
  }

  /** The issue's card, if it has one. */
  cardOf(config: WebhookConfig, plan: LaunchPlan): Promise<BoardCardRow | undefined> {
    return findCardByIssue(this.deps.store.db, config.tenant_id, plan.card!.issueRef);
  }

  /** The forge's approval of a card waiting for one, with the approver's variables; false when it does not wait (or no longer). */
  async approve(card: BoardCardRow, plan: LaunchPlan): Promise<boolean> {
    const patch = approvalOf(card, this.deps.clock.now(), plan.card?.approval);
    return patch !== undefined && updateCardIfUnchanged(this.deps.store.db, card, patch);
  }

  private async place(config: WebhookConfig, plan: LaunchPlan, labels: string[]): Promise<Extract<Carded, { kind: "carded" }>> {
    const now = this.deps.clock.now();
    const cardId = await this.insert(config, plan, { column: "ready", run_id: null, labels }, now);
    if (cardId) return { kind: "carded", cardId, created: true };
    const held = await findCardByIssue(this.deps.store.db, config.tenant_id, plan.card!.issueRef);
    return { kind: "carded", cardId: held!.id, created: false };
  }

  /** The new card's id, or undefined when the issue has one already. */
  private async insert(
    config: WebhookConfig,
    plan: LaunchPlan,
    at: { column: "ready" | "running"; run_id: string | null; labels?: string[] },
    now: number,
  ): Promise<string | undefined> {
    const card = plan.card!;
    const id = this.deps.ids.next("card");
    try {
      const row = newCardRow({
        id,
        team_id: config.tenant_id,
        title: card.title.slice(0, 500),
        body: card.body.slice(0, 64 * 1024),
        labels: JSON.stringify(at.labels ?? []),
        column: at.column,
        provenance: "issue_label",
        source_issue_ref: card.issueRef,
        bot_id: plan.botId,
        vars: JSON.stringify(plan.vars),
        repo_url: plan.repoUrl ?? null,
        repo_ref: plan.repoRef ?? null,
        project_path: plan.projectPath || null,
        webhook_id: config.id,
        run_id: at.run_id,
        now,
      });
      await insertCard(this.deps.store.db, row);
      return id;
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }
}
