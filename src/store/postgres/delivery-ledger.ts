import type { Db } from "../db.js";
import type { CallAdmission, CallLimits, CommitAnswer, DeliveryCommit, DeliveryLedger } from "../delivery-ledger.js";
import { admitWebhookCall, parseVerdict } from "./admit-webhook-call.js";
import { type CallAnswer, deliverWebhookCalls } from "./deliver-webhook-calls.js";

/** Calls in one batch at most: ~2 KB of JSON each, and a flush shared by this many is plenty. */
const MAX_CALLS = 100;

interface Waiting {
  commit: DeliveryCommit;
  resolve: (answer: CommitAnswer) => void;
  reject: (err: unknown) => void;
}

/**
 * PostgreSQL's ledger: commits sent in batches, as SQLite shares one commit among concurrent
 * calls. One batch is in flight at a time, on one pooled connection; calls that arrive meanwhile
 * wait, and the next batch takes every waiting call (up to {@link MAX_CALLS}). Unloaded, a call
 * goes at once, alone; under load one round trip and one WAL flush serve many. Processes sharing
 * a database each send their own batches. One batch in flight, not one per pooled connection: on
 * the 2-core bench machine two made batches half as large and cost more per call.
 */
export class PgDeliveryLedger implements DeliveryLedger {
  private waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly db: Db) {}

  commit(commit: DeliveryCommit): Promise<CommitAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ commit, resolve, reject });
      if (!this.sending) this.sendNext();
    });
  }

  admit(limits: CallLimits): Promise<CallAdmission> {
    return admitWebhookCall(this.db, limits);
  }

  private sendNext(): void {
    const batch = this.waiting.length <= MAX_CALLS ? this.waiting : this.waiting.slice(0, MAX_CALLS);
    this.waiting = batch === this.waiting ? [] : this.waiting.slice(MAX_CALLS);
    this.sending = true;
    void this.send(batch).finally(() => {
      this.sending = false;
      if (this.waiting.length > 0) this.sendNext();
    });
  }

  private async send(batch: Waiting[]): Promise<void> {
    let answers: CallAnswer[];
    try {
      answers = await deliverWebhookCalls(
        this.db,
        batch.map((w) => w.commit),
      );
    } catch (err) {
      for (const call of batch) call.reject(err);
      return;
    }
    const retried: Promise<void>[] = [];
    for (const [i, call] of batch.entries()) {
      const answer = answers[i]!;
      const admission = parseVerdict(answer.verdict);
      if (admission.kind !== "admitted") call.resolve({ kind: "refused", refusal: admission });
      // The batch's writes were rolled back: this call's alone, its admission standing.
      else if (answer.retry) retried.push(this.retryAlone(call.commit).then(call.resolve, call.reject));
      else call.resolve(answer.outcome!);
    }
    await Promise.all(retried);
  }

  /** A call whose batch failed, as a batch of its own without its admission: its own error reaches it. */
  private async retryAlone(commit: DeliveryCommit): Promise<CommitAnswer> {
    const [answer] = await deliverWebhookCalls(this.db, [{ ...commit, admission: undefined }]);
    return answer!.outcome!;
  }
}
