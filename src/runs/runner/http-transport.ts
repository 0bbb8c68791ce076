import { LIMIT_FIELDS } from "../../config/resource-limits.js";
import { traced, traceHeaders, type TraceSpan } from "../../core/tracing.js";
import { botLimits } from "./bot-commands.js";
import type { OutputChunk } from "./bot-output.js";
import { RunnerTokenRefused, type AttemptReport, type AttemptTicket, type RunnerTransport } from "./runner-transport.js";
import { usageWire } from "./usage-line.js";

export interface HttpTransportOptions {
  /** The service's base URL, e.g. https://bots.example.com. */
  url: string;
  /** The runner token (rnr_…). */
  token: string;
  /** This host's name, shown in the runs it claims. */
  host?: string;
  /** Where bots' commands are resolved and run from: this host's bots folder. */
  botsDir: string;
  /** How long a claim waits at the service for a run (at most 25 s). */
  claimWaitSeconds?: number;
  /** Longest any other call may take. */
  callTimeoutMs?: number;
}

/** The ticket as the claim route answers it. */
interface TicketWire {
  run_id: string;
  attempt: number;
  claim_token: string;
  lease_seconds: number;
  /** `limits`: absent from an older service (the runner's defaults apply). */
  bot: { id: string; command: string[]; timeout_seconds: number; env: Record<string, string>; limits?: Record<string, number> };
  vars: Record<string, string>;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
  /** A person's answer to the previous attempt's question (null, or absent from an older service: none). */
  answer?: string | null;
  credentials: Record<string, string>;
}

/** A call the service answered with an error status, or that never got an answer. */
export class RunnerCallFailed extends Error {
  constructor(
    message: string,
    /** The HTTP status; undefined when the call never reached the service. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "RunnerCallFailed";
  }
}

/**
 * The runner protocol over HTTP (`/api/runner/v1`): what a runner on another host uses, with its
 * URL and runner token alone. Heartbeats that never reached the service are counted and told
 * with the next one, so the service's heartbeat error metric sees them.
 */
export class HttpTransport implements RunnerTransport {
  private missed = 0;
  private readonly base: string;

  constructor(private readonly o: HttpTransportOptions) {
    this.base = `${o.url.replace(/\/+$/, "")}/api/runner/v1`;
  }

  async claim(signal: AbortSignal): Promise<AttemptTicket | undefined> {
    const wait = this.o.claimWaitSeconds ?? 25;
    let trace: Record<string, string> = {};
    const res = await this.call(
      "claim",
      { wait_seconds: wait, ...(this.o.host && { host: this.o.host }) },
      AbortSignal.any([signal, AbortSignal.timeout(wait * 1000 + 15_000)]),
      (span, answer) => {
        const t = answer as TicketWire | undefined;
        span.set({ "run.id": t?.run_id, "run.attempt": t?.attempt, "runner.claimed": t !== undefined });
        trace = traceHeaders();
      },
    );
    if (res === undefined) return undefined;
    const t = res as TicketWire;
    // A limit this runner does not know (a newer service's) is left out; a bad value leaves its defaults.
    const limits = t.bot.limits && botLimits(Object.fromEntries(Object.entries(t.bot.limits).filter(([k]) => LIMIT_FIELDS.some((f) => f.file === k))));
    return {
      ...(Object.keys(trace).length > 0 && { trace }),
      runId: t.run_id,
      attempt: t.attempt,
      claimToken: t.claim_token,
      leaseMs: Math.round(t.lease_seconds * 1000),
      bot: {
        id: t.bot.id,
        command: t.bot.command,
        timeoutMs: Math.round(t.bot.timeout_seconds * 1000),
        env: t.bot.env,
        providers: [],
        cwd: this.o.botsDir,
        ...(limits && !(limits instanceof Error) && { limits }),
      },
      input: {
        runId: t.run_id,
        botId: t.bot.id,
        attempt: t.attempt,
        vars: t.vars,
        repoUrl: t.repo_url,
        repoRef: t.repo_ref,
        projectPath: t.project_path,
        answer: t.answer ?? null,
      },
      credentials: t.credentials,
    };
  }

  async heartbeat(ticket: AttemptTicket): Promise<{ held: boolean; cancel: boolean }> {
    const missed = this.missed;
    try {
      const beat = (await this.call(`runs/${encodeURIComponent(ticket.runId)}/heartbeat`, {
        claim_token: ticket.claimToken,
        ...(missed > 0 && { missed_heartbeats: Math.min(missed, 10_000) }),
      })) as { held: boolean; cancel: boolean };
      this.missed -= missed;
      return beat;
    } catch (err) {
      if (err instanceof RunnerCallFailed && err.status === undefined) this.missed++;
      throw err;
    }
  }

  async output(ticket: AttemptTicket, chunks: OutputChunk[]): Promise<void> {
    for (let at = 0; at < chunks.length; at += 1000) {
      await this.call(`runs/${encodeURIComponent(ticket.runId)}/output`, { claim_token: ticket.claimToken, lines: chunks.slice(at, at + 1000) });
    }
  }

  async finish(ticket: AttemptTicket, report: AttemptReport): Promise<{ finished: boolean }> {
    const o = report.outcome;
    const summary = o.summary && { summary: o.summary.slice(0, 280) };
    const outcome =
      o.status === "succeeded" || o.status === "cancelled"
        ? { status: o.status, ...summary }
        : {
            status: o.status,
            failure_code: o.failureCode,
            ...(o.detail !== undefined && { detail: o.detail.slice(0, 2000) }),
            ...(o.usageWindow && { usage_window: { provider: o.usageWindow.provider.slice(0, 512), reset_at: new Date(o.usageWindow.resetAt).toISOString() } }),
            ...(o.question && { question: o.question }),
            ...summary,
          };
    return (await this.call(`runs/${encodeURIComponent(ticket.runId)}/finish`, {
      claim_token: ticket.claimToken,
      outcome,
      usage: report.usage.slice(0, 10_000).map(usageWire),
    })) as { finished: boolean };
  }

  /**
   * POSTs `body`; the JSON answer, or undefined for 204 (a 401: the token was refused). Traced,
   * each call but the heartbeat is a client span whose context goes with it as `traceparent`.
   */
  private call(path: string, body: unknown, signal?: AbortSignal, onAnswer?: (span: TraceSpan, answer: unknown) => void): Promise<unknown> {
    const op = path.split("/").at(-1)!;
    if (op === "heartbeat") return this.send(path, body, signal);
    const runId = path.startsWith("runs/") ? decodeURIComponent(path.split("/")[1]!) : undefined;
    return traced(
      `runner.${op}`,
      { "run.id": runId, "http.request.method": "POST", "url.template": `/api/runner/v1/${runId ? "runs/{id}/" : ""}${op}` },
      async (span) => {
        const answer = await this.send(path, body, signal);
        onAnswer?.(span, answer);
        return answer;
      },
      "client",
    );
  }

  private async send(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/${path}`, {
        method: "POST",
        headers: { ...traceHeaders(), authorization: `Bearer ${this.o.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: signal ?? AbortSignal.timeout(this.o.callTimeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new RunnerCallFailed(`${path}: the service could not be reached (${err instanceof Error ? err.message : String(err)})`);
    }
    if (res.status === 204) return undefined;
    const text = await res.text();
    if (res.status === 401) throw new RunnerTokenRefused();
    if (!res.ok) throw new RunnerCallFailed(`${path}: HTTP ${res.status} ${text.slice(0, 300)}`, res.status);
    return JSON.parse(text);
  }
}
