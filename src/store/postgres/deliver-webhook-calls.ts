import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import type { CommitAnswer, DeliveryCommit } from "../delivery-ledger.js";
import { limitParams } from "./admit-webhook-call.js";

/** One call's answer in `deliver_webhook_calls`' `answers` (deliver-webhook-calls.sql). */
export interface CallAnswer {
  verdict: string;
  outcome?: CommitAnswer;
  retry?: true;
}

const deliverCalls = new Compiled<{ answers: CallAnswer[] }>(`call deliver_webhook_calls(?::jsonb)`);

/** A batch of webhook calls' writes in one round trip and one commit (deliver-webhook-calls.sql): an answer per call, in order. */
export async function deliverWebhookCalls(db: Db, commits: DeliveryCommit[]): Promise<CallAnswer[]> {
  const [row] = await deliverCalls.rows(db, [JSON.stringify(commits.map(callJson))]);
  const answers = row?.answers ?? [];
  if (answers.length !== commits.length) throw new Error(`deliver_webhook_calls answered ${answers.length} of ${commits.length} calls`);
  return answers;
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
