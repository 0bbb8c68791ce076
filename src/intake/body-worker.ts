/**
 * The body thread's entry (compiled to dist/intake/body-worker.js): it prepares each batch of
 * bodies the event loop posts and answers with the results, in the batch's order.
 */
import { parentPort } from "node:worker_threads";
import type { BodyReply, NumberedJob } from "./body-workers.js";
import { prepareBody } from "./prepare-body.js";

const port = parentPort;
if (!port) throw new Error("body-worker.js runs as a worker thread");

port.on("message", (batch: NumberedJob[]) => {
  const replies: BodyReply[] = batch.map(({ id, job }) => {
    try {
      return { id, body: prepareBody(job) };
    } catch (err) {
      return { id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
  });
  port.postMessage(replies);
});
