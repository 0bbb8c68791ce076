import { Compiled } from "./compiled.js";
import { limitParams, parseVerdict, writeOnPostgres, type CallLimits, type DeliveryAnswer, type DeliveryWrite, type DeliveryWriteOutcome } from "./intake.js";
import type { Db } from "./db.js";

/** One call's answer in `deliver_webhook_calls`' `answers` (store/postgres/deliver-webhook-calls.sql). */
interface CallAnswer {
  verdict: string;
  outcome?: DeliveryWriteOutcome;
  retry?: true;
}

const deliverCalls = new Compiled<{ answers: CallAnswer[] }>(`call deliver_webhook_calls(?::jsonb)`);

/** Calls in one batch at most: ~2 KB of JSON each, and a flush shared by this many is plenty. */
const MAX_CALLS = 100;

interface Waiting {
  limits: CallLimits | null;
  write: DeliveryWrite;
  resolve: (answer: DeliveryAnswer) => void;
  reject: (err: unknown) => void;
}

/**
 * PostgreSQL: webhook calls' writes ({@link Store.deliver}) sent in batches, as SQLite's writer
 * shares one commit among concurrent calls. One batch is in flight at a time, on one pooled
 * connection; calls that arrive meanwhile wait, and the next batch takes every waiting call (up
 * to {@link MAX_CALLS}). Unloaded, a call goes at once, alone; under load one round trip and one
 * WAL flush serve many. Every call is answered after the commit that holds its rows
 * (`deliver_webhook_calls`, store/postgres/deliver-webhook-calls.sql). Service processes
 * sharing a database each send their own batches, which PostgreSQL runs side by side.
 *
 * One batch in flight, not one per pooled connection: on the 2-core benchmark machine two in
 * flight made batches half as large, and cost more per call on both sides (`bench/ANALYSIS.md`).
 */
export class PgDeliveryBatches {
  private waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly db: Db) {}

  deliver(limits: CallLimits | null, write: DeliveryWrite): Promise<DeliveryAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ limits, write, resolve, reject });
      if (!this.sending) this.sendNext();
    });
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
      const [row] = await deliverCalls.rows(this.db, [JSON.stringify(batch.map(callJson))]);
      answers = row?.answers ?? [];
      if (answers.length !== batch.length) throw new Error(`deliver_webhook_calls answered ${answers.length} of ${batch.length} calls`);
    } catch (err) {
      for (const call of batch) call.reject(err);
      return;
    }
    const retried: Promise<void>[] = [];
    for (const [i, call] of batch.entries()) {
      const answer = answers[i]!;
      const admission = parseVerdict(answer.verdict);
      if (admission.kind !== "admitted") call.resolve({ admission });
      // The batch's writes were rolled back: this call's alone, its admission standing.
      else if (answer.retry) retried.push(writeOnPostgres(this.db, call.write).then((outcome) => call.resolve({ admission, outcome }), call.reject));
      else call.resolve({ admission, outcome: answer.outcome });
    }
    await Promise.all(retried);
  }
}

/** A call as `deliver_webhook_calls` reads it. */
function callJson({ limits, write: { row, launch, duplicateId } }: Waiting) {
  return {
    admission: limits ? limitParams(limits) : undefined,
    delivery: row,
    team: launch?.teamId,
    run: launch?.run,
    month: launch?.month,
    duplicate: duplicateId,
  };
}
