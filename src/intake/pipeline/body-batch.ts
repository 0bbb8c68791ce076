import { prepareBody, type BodyJob, type PreparedBody } from "./prepare-body.js";

/**
 * Delivery bodies hashed, proven and parsed ({@link prepareBody}) together, once the event-loop
 * turn has read every request it could: the same code run back to back costs less CPU than run
 * interleaved with HTTP parsing and the store (bench/ANALYSIS.md §9).
 */
export class BodyBatch {
  private queued: { job: BodyJob; resolve: (body: PreparedBody) => void; reject: (err: unknown) => void }[] = [];

  prepare(job: BodyJob): Promise<PreparedBody> {
    return new Promise((resolve, reject) => {
      if (this.queued.push({ job, resolve, reject }) === 1) setImmediate(() => this.drain());
    });
  }

  private drain(): void {
    const batch = this.queued;
    this.queued = [];
    for (const { job, resolve, reject } of batch) {
      try {
        resolve(prepareBody(job));
      } catch (err) {
        reject(err);
      }
    }
  }
}
