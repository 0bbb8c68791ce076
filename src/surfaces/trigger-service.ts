import type { LaunchDenial } from "../admission/decide-launch.js";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound, ServiceError } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { KnownBots } from "../runs/runs-api.js";
import type { Db, Store } from "../store/store.js";
import * as q from "../store/triggers.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { isObject, varMap, word } from "../webhooks/field-parsers.js";
import { fillVars, matchesFilter, type CustomEvent } from "./event-match.js";
import { iso } from "../core/iso.js";
import { auditedWrite, launchTargetColumns, launchTargetView, type LaunchTargetInput } from "./surface-fields.js";

export interface SubscriptionInput extends LaunchTargetInput {
  event?: string;
  filter?: Record<string, unknown>;
}

export interface EmitInput {
  team_id: string;
  event: string;
  payload?: Record<string, unknown>;
  /** A retried emit with the same key launches nothing a first one launched. */
  idempotency_key?: string;
}

/** One subscription's answer to an emit. */
export type EmitLaunch =
  | { subscription_id: string; status: "launched" | "duplicate"; run_id: string }
  | { subscription_id: string; status: "denied"; error: LaunchDenial["error"]; detail: string }
  | { subscription_id: string; status: "failed"; error: string; detail: string };

export type EmitResult = { kind: "emitted"; event: string; launches: EmitLaunch[] } | { kind: "denied"; denial: LaunchDenial };

const MAX_FILTER_ENTRIES = 32;
const FILTER_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function subscriptionView(r: q.TriggerSubscriptionRow) {
  return {
    ...launchTargetView(r),
    event: r.event,
    filter: JSON.parse(r.filter) as Record<string, string | number | boolean>,
    last_run_id: r.last_run_id,
    last_launched_at: iso(r.last_launched_at),
  };
}

/**
 * Custom-event triggers: subscriptions (members read, team admins write) and the emit, which a
 * team member sends. An emit is pre-checked once against the gate; each matching subscription
 * then launches through the gate and is metered, under the `trigger-spine` identity, recording
 * a refusal as its last_error and clearing it on its next launch.
 */
export class TriggerService {
  constructor(private readonly deps: { store: Store; clock: Clock; ids: IdGenerator; access: Access; audit: AuditLog; bots: KnownBots; launcher: Launcher }) {}

  async list(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await q.listTeamSubscriptions(this.deps.store.db, teamId)).map(subscriptionView);
  }

  async get(p: Principal, id: string) {
    const row = await this.find(id);
    await this.deps.access.team(p, row.team_id, "member");
    return subscriptionView(row);
  }

  async create(p: Principal, teamId: string, input: SubscriptionInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (input.name === undefined || input.event === undefined || input.bot === undefined) throw invalid("name", "a subscription needs name, event and bot");
    const target = await launchTargetColumns(input, team.org_id, this.deps.bots);
    const now = this.deps.clock.now();
    const row = {
      id: this.deps.ids.next("trg"),
      team_id: teamId,
      name: target.name!,
      event: word(input.event, "event"),
      filter: JSON.stringify(checkFilter(input.filter ?? {})),
      bot_id: input.bot,
      vars: target.vars ?? "{}",
      repo_url: target.repo_url ?? null,
      repo_ref: target.repo_ref ?? null,
      project_path: target.project_path ?? null,
      enabled: input.enabled === false ? 0 : 1,
      last_run_id: null,
      last_launched_at: null,
      last_error: null,
      last_error_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.write(p, "trigger.create", row.id, teamId, (db) => q.insertSubscription(db, row));
    return subscriptionView(row);
  }

  async update(p: Principal, id: string, input: SubscriptionInput) {
    const current = await this.find(id);
    const { team } = await this.deps.access.team(p, current.team_id, "admin");
    const patch = {
      ...(await launchTargetColumns(input, team.org_id, this.deps.bots)),
      ...(input.event !== undefined && { event: word(input.event, "event") }),
      ...(input.filter !== undefined && { filter: JSON.stringify(checkFilter(input.filter)) }),
      updated_at: this.deps.clock.now(),
    };
    await this.write(p, "trigger.update", id, current.team_id, (db) => q.updateSubscription(db, id, patch));
    return subscriptionView(await this.find(id));
  }

  async remove(p: Principal, id: string): Promise<void> {
    const current = await this.find(id);
    await this.deps.access.team(p, current.team_id, "admin");
    await this.write(p, "trigger.delete", id, current.team_id, (db) => q.deleteSubscription(db, id));
  }

  /** Fans an event out to the team's matching subscriptions. */
  async emit(p: Principal, input: EmitInput): Promise<EmitResult> {
    await this.deps.access.team(p, input.team_id, "member");
    const e: CustomEvent = { event: word(input.event, "event"), payload: input.payload ?? {} };
    const key = input.idempotency_key;
    if (key !== undefined && (key.length === 0 || key.length > 200)) throw invalid("idempotency_key", "idempotency_key must be 1-200 characters");
    // The spine launches under its own identity: an emitter's gate bypass (a super-admin's) does not travel.
    const denial = await this.deps.launcher.precheck(input.team_id, false);
    if (denial) return { kind: "denied", denial };
    const matching = (await q.subscriptionsTo(this.deps.store.db, input.team_id, e.event)).filter((s) => matchesFilter(JSON.parse(s.filter), e.payload));
    const launches: EmitLaunch[] = [];
    for (const s of matching) launches.push(await this.launchOne(p, s, e, key));
    return { kind: "emitted", event: e.event, launches };
  }

  private async launchOne(p: Principal, s: q.TriggerSubscriptionRow, e: CustomEvent, key: string | undefined): Promise<EmitLaunch> {
    const { store, clock, launcher } = this.deps;
    const subscription_id = s.id;
    const earlier = key === undefined ? undefined : await q.findTriggerLaunch(store.db, s.team_id, key, s.id);
    if (earlier) return { subscription_id, status: "duplicate", run_id: earlier };
    const now = clock.now();
    let refused: Extract<EmitLaunch, { error: string }>;
    try {
      const vars = varMap(fillVars(JSON.parse(s.vars), e), "vars");
      const result = await launcher.launch(
        {
          teamId: s.team_id,
          botId: s.bot_id,
          vars,
          repoUrl: s.repo_url,
          repoRef: s.repo_ref,
          projectPath: s.project_path,
          source: "trigger",
          actor: { userId: p.userId, kind: "trigger-spine" },
          bypassGate: false,
        },
        { record: { trigger: { teamId: s.team_id, subscriptionId: s.id, key } } },
      );
      if (result.kind === "launched") return { subscription_id, status: "launched", run_id: result.run.id };
      if (result.kind === "taken") return await this.winner(s, key);
      refused = { subscription_id, status: "denied", error: result.denial.error, detail: result.denial.detail };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      refused = { subscription_id, status: "failed", error: err.code, detail: err.message };
    }
    await q.updateSubscription(store.db, s.id, { last_error: `${refused.error}: ${refused.detail}`, last_error_at: now });
    return refused;
  }

  /** The run that a concurrent emit with the same key launched for the subscription first (its launch `taken`). */
  private async winner(s: q.TriggerSubscriptionRow, key: string | undefined): Promise<EmitLaunch> {
    const winner = key === undefined ? undefined : await q.findTriggerLaunch(this.deps.store.db, s.team_id, key, s.id);
    if (!winner) throw conflict("a concurrent emit with this idempotency key launched the subscription, and its launch is gone");
    return { subscription_id: s.id, status: "duplicate", run_id: winner };
  }

  private async find(id: string): Promise<q.TriggerSubscriptionRow> {
    const row = await q.findSubscription(this.deps.store.db, id);
    if (!row) throw notFound("trigger subscription");
    return row;
  }

  private write(p: Principal, action: string, id: string, teamId: string, fn: (db: Db) => Promise<void>) {
    return auditedWrite(this.deps, p, { type: "trigger_subscription", id, teamId, action, nameTaken: "the team has a subscription of that name" }, fn);
  }
}

/** A filter: at most 32 payload paths, each to a string, number or boolean. */
function checkFilter(filter: unknown): Record<string, string | number | boolean> {
  if (!isObject(filter)) throw invalid("filter", "filter must be an object of payload path to value");
  const entries = Object.entries(filter);
  if (entries.length > MAX_FILTER_ENTRIES) throw invalid("filter", `filter may hold at most ${MAX_FILTER_ENTRIES} entries`);
  for (const [path, value] of entries) {
    if (!FILTER_PATH.test(path)) throw invalid(`filter.${path}`, `filter path ${JSON.stringify(path)} must be dot-separated names`);
    if (!["string", "number", "boolean"].includes(typeof value)) throw invalid(`filter.${path}`, "filter values must be strings, numbers or booleans");
  }
  return filter as Record<string, string | number | boolean>;
}
