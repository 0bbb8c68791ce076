import type { LaunchDenial } from "../admission/decide-launch.js";
import type { Launcher } from "../admission/launcher.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import { findForgeConnectionOfTeam } from "../store/forge-connections.js";
import { checkLine } from "../core/names.js";
import type { Clock } from "../core/clock.js";
import type { Metrics } from "../metrics/metrics.js";
import { countDeadLetters, discardDeadLetter, listDeadLetters, republishRun } from "../store/run-retries.js";
import type { RunStatus } from "../store/schema/runs.js";
import { listRunCredentials } from "../store/attempt-credentials.js";
import * as q from "../store/runs.js";
import type { Store } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { Runs } from "./runs.js";
import { varMap } from "../webhooks/field-parsers.js";
import { nulField, nulMessage } from "../core/nul-field.js";
import { questionOf, runDetailView, runView } from "./run-views.js";
import { visibleRun } from "./visible-run.js";

/** Which bot ids an org may launch: the shape of the bot catalog's check, which the runner's bots file also offers. */
export interface KnownBots {
  isKnownBot(orgId: string, botId: string): Promise<boolean>;
}

export interface LaunchInput {
  team_id: string;
  bot: string;
  vars?: Record<string, string>;
  repo_url?: string;
  repo_ref?: string;
  project_path?: string;
  connection_id?: string;
}

/** `https://forge.example/acme/widgets.git` → `acme/widgets`; undefined for what is not a URL. */
function repoPathOfUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const path = new URL(url).pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
    return path === "" ? undefined : path;
  } catch {
    return undefined;
  }
}

export type ApiLaunchResult = { kind: "launched"; run: ReturnType<typeof runView> } | { kind: "denied"; denial: LaunchDenial };

/**
 * Runs as the management API sees them. Team members launch, read, resume and cancel their
 * team's runs; deleting a run and its data takes a team admin. Super-admins bypass the gate.
 */
export class RunsApi {
  constructor(private readonly deps: { store: Store; clock: Clock; access: Access; launcher: Launcher; runs: Runs; bots: KnownBots; metrics: Metrics }) {}

  async launch(p: Principal, input: LaunchInput): Promise<ApiLaunchResult> {
    const { team } = await this.deps.access.team(p, input.team_id, "member");
    const nul = nulField({ bot: input.bot, repo_url: input.repo_url, repo_ref: input.repo_ref, project_path: input.project_path });
    if (nul) throw invalid(nul, nulMessage(nul));
    for (const field of ["repo_url", "repo_ref", "project_path"] as const) {
      const value = input[field];
      if (value !== undefined) checkLine(value, field);
    }
    const vars = varMap(input.vars ?? {}, "vars");
    if (!(await this.deps.bots.isKnownBot(team.org_id, input.bot))) throw invalid("bot", `unknown bot ${input.bot}`);
    const projectPath = await this.connectedRepo(input);
    const result = await this.deps.launcher.launch({
      teamId: input.team_id,
      botId: input.bot,
      vars,
      repoUrl: input.repo_url,
      repoRef: input.repo_ref,
      projectPath,
      connectionId: input.connection_id,
      source: "api",
      actor: { userId: p.userId, kind: "user" },
      bypassGate: p.superAdmin,
    });
    return result.kind === "launched" ? { kind: "launched", run: runView(result.run) } : result;
  }

  /**
   * A run naming `connection_id` is handed a forge credential for its repository alone, so both
   * must be sound: a connection of the run's own team (another team's credential is not the
   * caller's to hand out: 404), and the repository as `project_path`, else read off `repo_url`.
   */
  private async connectedRepo(input: LaunchInput): Promise<string | undefined> {
    if (input.connection_id === undefined) return input.project_path;
    const conn = await findForgeConnectionOfTeam(this.deps.store.db, input.team_id, input.connection_id);
    // A connection of another team, or none at all, is not found, as any other foreign id is.
    if (!conn) throw notFound("connection");
    const path = input.project_path ?? repoPathOfUrl(input.repo_url);
    if (path === undefined || !/^[\w.-]+(\/[\w.-]+)+$/.test(path)) {
      throw invalid("project_path", "a run with connection_id names its repository: project_path (owner/name) or a repo_url with that path");
    }
    return path;
  }

  async get(p: Principal, runId: string) {
    const run = await this.visibleRun(p, runId, "member");
    const db = this.deps.store.db;
    return runDetailView(run, await q.listAttempts(db, runId), await q.sumRunUsage(db, runId), await listRunCredentials(db, runId));
  }

  async list(p: Principal, teamId: string, options: { status?: RunStatus; limit?: number }) {
    await this.deps.access.team(p, teamId, "member");
    const rows = await q.listTeamRuns(this.deps.store.db, teamId, { status: options.status, limit: options.limit ?? 50 });
    return rows.map(runView);
  }

  async resume(p: Principal, runId: string): Promise<ApiLaunchResult> {
    await this.visibleRun(p, runId, "member");
    const result = await this.deps.launcher.resume(runId, { userId: p.userId, kind: "user" }, p.superAdmin);
    return result.kind === "launched" ? { kind: "launched", run: runView(result.run) } : result;
  }

  /**
   * A person's answer to the question the run waits on: kept for the next attempt (BOT_ANSWER
   * and stdin) and the run resumed through the gate, in one transaction, so a refused resume
   * keeps no answer. A run that waits for no answer is 409; an answer outside the question's
   * choices is 400.
   */
  async answer(p: Principal, runId: string, answer: string): Promise<ApiLaunchResult> {
    const run = await this.visibleRun(p, runId, "member");
    if (answer.includes("\u0000")) throw invalid("answer", nulMessage("answer"));
    const question = questionOf(run);
    if (!question || run.status !== "failed_resumable" || run.failure_code !== "QUESTION") throw conflict("the run is not waiting for an answer");
    if (question.choices && !question.choices.includes(answer)) throw invalid("answer", `the answer must be one of: ${question.choices.join(", ")}`);
    const result = await this.deps.launcher.resume(runId, { userId: p.userId, kind: "user" }, p.superAdmin, { record: { answer } });
    if (result.kind === "taken") throw conflict("the run is not waiting for an answer");
    return result.kind === "launched" ? { kind: "launched", run: runView((await q.findRun(this.deps.store.db, runId)) ?? result.run) } : result;
  }

  async cancel(p: Principal, runId: string) {
    await this.visibleRun(p, runId, "member");
    await this.deps.runs.cancel(runId);
    return runView((await q.findRun(this.deps.store.db, runId))!);
  }

  /** The team's runs on the dead-letter queue, newest first (team admin). */
  async deadLetters(p: Principal, teamId: string, limit = 100) {
    await this.deps.access.team(p, teamId, "admin");
    return (await listDeadLetters(this.deps.store.db, teamId, limit)).map(runView);
  }

  /** Puts a dead-lettered run back on the queue as its next attempt, not counted again. */
  async republish(p: Principal, runId: string) {
    await this.visibleRun(p, runId, "admin");
    const now = this.deps.clock.now();
    if (!(await this.deps.store.tx((tx) => republishRun(tx, runId, now)))) throw conflict("only a run on the dead-letter queue can be re-published");
    await this.refreshDepth();
    return runView((await q.findRun(this.deps.store.db, runId))!);
  }

  /** Takes a run off the dead-letter queue as failed. */
  async discard(p: Principal, runId: string) {
    await this.visibleRun(p, runId, "admin");
    if (!(await this.deps.store.tx((tx) => discardDeadLetter(tx, runId, this.deps.clock.now())))) throw conflict("the run is not on the dead-letter queue");
    await this.refreshDepth();
    return runView((await q.findRun(this.deps.store.db, runId))!);
  }

  private async refreshDepth() {
    this.deps.metrics.dlqDepth.set(await countDeadLetters(this.deps.store.db));
  }

  async delete(p: Principal, runId: string): Promise<void> {
    await this.visibleRun(p, runId, "admin");
    await this.deps.store.tx((tx) => q.deleteRun(tx, runId));
  }

  private visibleRun(p: Principal, runId: string, need: "member" | "admin") {
    return visibleRun(this.deps.store.db, this.deps.access, p, runId, need);
  }
}
