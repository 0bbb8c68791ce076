import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { ADMITTED, type CallAdmission, type CallLimits, type CommitAnswer, type DeliveryCommit, type DeliveryLedger } from "../delivery-ledger.js";

/** One call's answer in `deliver_webhook_calls`' `answers` (deliver-webhook-calls.sql). */
interface CallAnswer {
  verdict: string;
  outcome?: CommitAnswer;
  retry?: true;
}

const deliverCalls = new Compiled<{ answers: CallAnswer[] }>(`call deliver_webhook_calls(?::jsonb)`);

/**
 * The admission alone commits without waiting for its WAL flush (`synchronous_commit` off for its
 * own statement), so the webhook's bucket and counter rows are not held locked through an fsync.
 * Nothing is acknowledged on it: every answer that records the delivery follows a synchronous
 * commit, and that flush covers all WAL written before it.
 */
const admitAlone = new Compiled<{ verdict: string }>(
  `select admit_webhook_call(?, ?, ?, ?, ?, ?, ?, ?) as "verdict", set_config('synchronous_commit', 'off', true) as "async_commit"`,
);

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

  async admit(limits: CallLimits): Promise<CallAdmission> {
    const [row] = await admitAlone.rows(this.db, limitParams(limits));
    return parseVerdict(row?.verdict);
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
      answers = await this.call(batch.map((w) => w.commit));
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
    const [answer] = await this.call([{ ...commit, admission: undefined }]);
    return answer!.outcome!;
  }

  private async call(commits: DeliveryCommit[]): Promise<CallAnswer[]> {
    const [row] = await deliverCalls.rows(this.db, [JSON.stringify(commits.map(callJson))]);
    const answers = row?.answers ?? [];
    if (answers.length !== commits.length) throw new Error(`deliver_webhook_calls answered ${answers.length} of ${commits.length} calls`);
    return answers;
  }
}

/** A call as `deliver_webhook_calls` reads it. */
function callJson({ admission, row, launch, replayOf }: DeliveryCommit) {
  return {
    admission: admission ? limitParams(admission) : undefined,
    delivery: row,
    team: launch?.teamId,
    run: launch?.run,
    month: launch?.month,
    duplicate: replayOf,
  };
}

/** `admit_webhook_call`'s arguments, in order. */
function limitParams(l: CallLimits): unknown[] {
  return [l.webhookId, l.orgId, l.rate, l.burst, l.orgMonthlyCalls, l.webhookMonthlyCalls, l.month, l.now];
}

/** `admit_webhook_call`'s text answer. */
function parseVerdict(verdict: string | undefined): CallAdmission {
  if (verdict === "admitted") return ADMITTED;
  const [kind, detail] = (verdict ?? "").split(":");
  if (kind === "rate_limited") return { kind: "rate_limited", retryAfterSeconds: Number(detail) };
  if (kind === "quota_exceeded") return { kind: "quota_exceeded", scope: detail === "org" ? "org" : "webhook" };
  throw new Error(`admit_webhook_call answered ${JSON.stringify(verdict)}`);
}
