/** A committed change that copies of configuration held in memory must drop. */
export type Change = { kind: "webhook"; id: string } | { kind: "org"; id: string };

/**
 * In-process notice of configuration writes, so caches see this process's own writes at
 * once. Other replicas are not told: their caches expire by time.
 */
export class ChangeFeed {
  private readonly listeners: Array<(change: Change) => void> = [];

  subscribe(listener: (change: Change) => void): void {
    this.listeners.push(listener);
  }

  /** Call after the write committed. */
  publish(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
