import type { RunnerDesk } from "../desk/runner-desk.js";
import type { RunnerIdentity } from "../desk/runner-tokens.js";
import type { OutputChunk } from "./bot-output.js";
import type { AttemptReport, AttemptTicket, RunnerTransport } from "./runner-transport.js";

/** The embedded mode's transport: the runner loop calls the service's desk in the same process. */
export class InProcessTransport implements RunnerTransport {
  constructor(
    private readonly desk: RunnerDesk,
    private readonly runner: RunnerIdentity,
  ) {}

  claim(): Promise<AttemptTicket | undefined> {
    return this.desk.claim(this.runner);
  }

  heartbeat(ticket: AttemptTicket): Promise<{ held: boolean; cancel: boolean }> {
    return this.desk.heartbeat(this.runner, ticket.runId, ticket.claimToken);
  }

  async output(ticket: AttemptTicket, chunks: OutputChunk[]): Promise<void> {
    await this.desk.output(this.runner, ticket.runId, ticket.claimToken, chunks);
  }

  finish(ticket: AttemptTicket, report: AttemptReport): Promise<{ finished: boolean }> {
    return this.desk.finish(this.runner, ticket.runId, ticket.claimToken, report);
  }
}
