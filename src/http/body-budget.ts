/**
 * The bytes of request bodies this process holds at once, bounded: a body is read only while
 * its bytes fit, so no number of concurrent uploads can grow the process past the budget.
 * A declared length is taken whole before the first byte is read; a chunked body chunk by chunk.
 */
export class BodyBudget {
  private held = 0;

  constructor(
    readonly capacity: number,
    /** Told of the bytes held after every change (a gauge). */
    private readonly observe: (held: number) => void = () => {},
  ) {}

  get inUse(): number {
    return this.held;
  }

  /** Takes `bytes` when they fit; false (and nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (this.held + bytes > this.capacity) return false;
    this.held += bytes;
    this.observe(this.held);
    return true;
  }

  give(bytes: number): void {
    if (bytes <= 0) return;
    this.held = Math.max(0, this.held - bytes);
    this.observe(this.held);
  }
}
