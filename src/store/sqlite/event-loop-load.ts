import { performance, type EventLoopUtilization } from "node:perf_hooks";

/**
 * A sample in which the event loop ran for more than this share of the wall time makes it busy.
 * At 1000 deliveries/s on 2 cores shared with the load generator, an event loop that writes its
 * deliveries itself ran for 0.44–0.75 of each 100 ms (bench/ANALYSIS.md, section 22).
 */
const BUSY_ABOVE = 0.8;
/**
 * A busy event loop is idle again after a sample under this share. Writing deliveries itself adds
 * about half to what it runs, so a loop that turned busy, relieved of them, stays over this mark
 * until the load itself falls: the two do not alternate under a steady load.
 */
const IDLE_BELOW = 0.5;
const SAMPLE_EVERY_MS = 100;

/** Whether the event loop has work enough that what can be moved off it should be. */
export interface EventLoopLoad {
  readonly busy: boolean;
}

/**
 * The event loop's load, from its utilization (the share of wall time it spent running rather
 * than waiting for events) over each sample's 100 ms, with hysteresis: busy above
 * {@link BUSY_ABOVE}, idle again below {@link IDLE_BELOW}.
 */
export class EventLoopWatch implements EventLoopLoad {
  private state = false;
  private timer: NodeJS.Timeout | undefined;

  get busy(): boolean {
    return this.state;
  }

  /** Takes one sample's utilization, between 0 and 1. */
  observe(utilization: number): void {
    this.state = this.state ? utilization >= IDLE_BELOW : utilization > BUSY_ABOVE;
  }

  /** Samples the process's event loop every `everyMs`, until {@link stop}. */
  start(everyMs = SAMPLE_EVERY_MS): this {
    let last: EventLoopUtilization = performance.eventLoopUtilization();
    this.timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.observe(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    }, everyMs);
    // A sampler alone never keeps the process up.
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
