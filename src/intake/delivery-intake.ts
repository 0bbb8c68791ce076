import type { Logger } from "pino";
import type { Launcher } from "../admission/launcher.js";
import { effectiveLimit } from "../config/config.js";
import type { BotCatalog } from "../bots/bot-catalog.js";
import { isBuiltinBot } from "../bots/bot-id.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { monthOf } from "../core/month.js";
import { sha256Hex } from "../core/secrets.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Runs } from "../runs/runs.js";
import type { NewDelivery } from "../store/deliveries.js";
import { ADMITTED, type CallAdmission, type CallLimits, type CallRefusal } from "../store/delivery-ledger.js";
import type { Store } from "../store/store.js";
import { PROVIDER_ALIASES, type ProviderName, type WebhookConfig } from "../webhooks/webhook-config.js";
import { acceptedPrevious, matchWebhookToken } from "../webhooks/webhook-token.js";
import { checkDeliveryToken } from "../forges/shared/check-delivery-token.js";
import { filtered, invalidHttpStatus, type FinalDecision, type RefusalCode } from "./pipeline/delivery-decision.js";
import { bumpGateStreak, readGateStreak, resetGateStreak } from "../store/gate-streaks.js";
import type { DeliveryContext } from "./pipeline/delivery-context.js";
import { evaluateDelivery } from "./evaluate-delivery.js";
import type { ForgeStep } from "./lanes/forge/forge-step.js";
import type { OverlapStep } from "./pipeline/overlap.js";
import type { DeliveryTarget, DeliveryTargets } from "./delivery-targets.js";
import type { BodyBatch } from "./pipeline/body-batch.js";
import type { BodyAuth } from "../forges/shared/provider.js";
import { providers } from "../forges/providers.js";
import { baseRow, planRowOf, recordedRow, summaryColumns, type Base } from "./delivery-rows.js";
import type { DeliveryHead, DeliveryOpening, DeliveryOutcome, DeliveryRequest, LaunchResultOf, OpenDelivery } from "./delivery-outcome.js";
import type { ParkedLaunches, ParkResult } from "./parked-launches.js";
import { KeyedLaunches, type KeyedOutcome } from "./keyed-launch.js";
import type { IssueCards } from "./issue-cards.js";
import type { BoardCardRow } from "../store/board.js";
import type { LaunchPlan } from "./pipeline/launch-plan.js";
import { BoundedMap } from "../core/bounded-map.js";

const NO_BODY = Buffer.alloc(0);

export interface DeliveryIntakeDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  log: Logger;
  launcher: Launcher;
  runs: Runs;
  /** Webhook configurations as deliveries read them (cached per process). */
  targets: DeliveryTargets;
  /** Where bodies are hashed, proven and parsed. */
  bodies: BodyBatch;
  bots: BotCatalog;
  /** Monthly webhook calls of an org that sets none (SERVICE_WEBHOOK_MONTHLY_CALLS_DEFAULT). */
  monthlyCallsDefault: number;
  syncDebounceMs: number;
  /** Synchronize launches parked for the debounce. */
  parked: ParkedLaunches;
  /** The issue lanes' cards on the team's board (board_mode). */
  cards: IssueCards;
  /** Performs the forge checks a lane asks for, before any write of the delivery. */
  forge: ForgeStep;
  /** The webhook's `overlap` against runs in flight, before any write. */
  overlap: OverlapStep;
}

/** How long a webhook whose monthly quota refused a call takes the admission-first path. */
const QUOTA_RECHECK_MS = 60_000;
/** Webhooks with a refusal hint at most; past it the oldest hint goes first. */
const REFUSED_HINTS_MAX = 10_000;

/**
 * The delivery endpoint: the admission gates in the spec's order, then the provider's
 * verify → parse → decide, then one idempotent launch per planned bot. The call's admission
 * (bucket and monthly quota) is written with the outcome's first write, so the body is proven,
 * parsed and decided on before it; the gates' order still decides the answer. Every row is
 * committed before the outcome is returned, so a 2xx always means stored.
 */
export class DeliveryIntake {
  /** Per webhook, until when this process last saw its calls refused: a hint, the store decides. */
  private readonly refusedUntil = new BoundedMap<string, number>(REFUSED_HINTS_MAX);
  private readonly keyed: KeyedLaunches;

  constructor(private readonly deps: DeliveryIntakeDeps) {
    this.keyed = new KeyedLaunches(deps);
  }

  /** A delivery whose body is already read: {@link open}, then {@link receive}. */
  async deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
    const opened = await this.open(req);
    return opened.kind === "refused" ? opened.outcome : this.receive(opened, req);
  }

  /**
   * The gates decided by the URL and the headers alone, before the body is read: the config,
   * the token (token mode) and `enabled`. A refused delivery's body is never read.
   */
  async open(head: DeliveryHead): Promise<DeliveryOpening> {
    const provider = PROVIDER_ALIASES[head.provider.toLowerCase()];
    if (!provider) return { kind: "refused", outcome: { kind: "unknown_webhook" } };
    const target = await this.deps.targets.get(head.webhookId);
    if (!target || target.config.provider !== provider) return { kind: "refused", outcome: { kind: "unknown_webhook" } };
    const { config } = target;
    const now = this.deps.clock.now();
    let provenToken: string | undefined;
    if (config.sign_mode === "token") {
      const check = checkDeliveryToken(head.headers, providers[provider].headers.token, (presented) => this.proveToken(provider, target, presented, now));
      if (!check.ok) {
        const row = baseRow(config, head.sourceIp, now, null);
        return {
          kind: "refused",
          outcome: { kind: "bad_token", deliveryId: await this.recordNow(row, "invalid", { reason: check.reason, refusal_code: "bad_token" }) },
        };
      }
      provenToken = check.token;
    }
    if (!config.enabled) return { kind: "refused", outcome: { kind: "disabled" } };
    // The token was checked against its salted hash above; the body's proof only compares it again.
    const auth: BodyAuth | undefined =
      config.sign_mode === "token" ? { mode: "token", verifyToken: (presented) => presented === provenToken } : signatureAuth(target, now);
    return { kind: "open", provider, target, auth, maxBodyBytes: providers[provider].maxBodyBytes };
  }

  /** The rest of the gates and the body's outcome, for a delivery {@link open} let through. */
  async receive(opened: OpenDelivery, req: DeliveryRequest): Promise<DeliveryOutcome> {
    const { store, clock } = this.deps;
    const { provider, target } = opened;
    const { config, owner } = target;
    const now = clock.now();
    let payloadSha256: string | undefined;
    /** The row of a delivery refused by the call's admission, before its body is proven. */
    const early = (): Base => {
      payloadSha256 ??= sha256Hex(req.rawBody);
      return baseRow(config, req.sourceIp, now, payloadSha256);
    };

    const limits: CallLimits = {
      webhookId: config.id,
      orgId: owner.orgId,
      rate: config.rate,
      burst: config.burst,
      orgMonthlyCalls: effectiveLimit(owner.orgMonthlyWebhookCalls, this.deps.monthlyCallsDefault),
      webhookMonthlyCalls: config.monthly_call_limit,
      month: monthOf(now),
      now,
    };
    /** The call refused by the bucket or the quota: its own row, and the 429. */
    const refuse = (refusal: CallRefusal) => this.refuse(provider, early(), refusal, now);
    /**
     * The call's admission while it is not written yet: it is written with the outcome's row,
     * in one write (one call of a batch on PostgreSQL). The gates' order still decides the answer:
     * a refused call is refused whatever its body.
     */
    let admission: CallLimits | undefined = limits;
    /** A non-launching outcome's row, with the admission when it is pending; or the refusal. */
    const recordAs = async (
      row: Base,
      status: "filtered" | "invalid" | "launch_error",
      reason: string,
      answer: (deliveryId: string) => DeliveryOutcome,
      refusalCode: RefusalCode | null = null,
    ) => {
      const id = this.deps.ids.next("dlv");
      const recorded = recordedRow(row, status, { reason, refusal_code: refusalCode }, id);
      const committed = await store.ledger.commit({ admission, row: recorded });
      if (committed.kind === "refused") return refuse(committed.refusal);
      this.deps.metrics.webhookDeliveries.inc({ provider, status });
      return answer(id);
    };

    /** The pending admission as a write of its own, for outcomes that are not one delivery write. */
    const admitAlone = async (): Promise<CallAdmission> => {
      const pending = admission;
      return pending ? store.ledger.admit(pending) : ADMITTED;
    };

    // The admission alone, first: when the org's status refuses the call anyway, and while this
    // webhook's calls are being refused, so that a flood of them is not proven and parsed.
    if (owner.org.status !== "active" || (this.refusedUntil.get(config.id) ?? 0) > now) {
      const admitted = await store.ledger.admit(limits);
      if (admitted.kind !== "admitted") return refuse(admitted);
      this.refusedUntil.delete(config.id);
      if (owner.org.status !== "active") return { kind: "org_suspended" };
      admission = undefined;
    }
    const auth = opened.auth;
    if (!auth) {
      const reason = "webhook has no signing secret; rotate it";
      return recordAs(early(), "invalid", "no signing secret", (deliveryId) => ({ kind: "invalid", httpStatus: 401, reason, deliveryId }), "no_secret");
    }
    const evaluated = await this.evaluate(provider, target, req, auth, now);
    const { row } = evaluated;
    const held = await this.holdGateFixes(config, evaluated.decision);
    // A redelivery that asked for a fresh key: its launches are keyed apart from the original's.
    const decision = req.keySalt === undefined ? held : withFreshKeys(held, req.keySalt);
    payloadSha256 = row.payload_sha256 ?? undefined;
    switch (decision.kind) {
      case "filtered": {
        const parked = decision.held?.[0];
        const reason = parked?.card && config.board_mode !== "off" ? await this.parkForApproval(config, parked, decision.reason) : decision.reason;
        return recordAs(row, "filtered", reason, (deliveryId) => ({ kind: "filtered", reason, deliveryId }));
      }
      case "invalid": {
        const httpStatus = invalidHttpStatus(provider, decision.code);
        return recordAs(row, "invalid", decision.reason, (deliveryId) => ({ kind: "invalid", reason: decision.reason, httpStatus, deliveryId }), decision.code);
      }
      case "forge_error":
        return recordAs(row, "launch_error", decision.reason, (deliveryId) => ({ kind: "forge_error", reason: decision.reason, deliveryId }));
      case "stop": {
        const admitted = await admitAlone();
        if (admitted.kind !== "admitted") return refuse(admitted);
        const stopped = await this.deps.runs.stopBySubject(config.tenant_id, decision.subjectId);
        const dropped = await this.deps.parked.dropForSubject(config.id, decision.subjectId, "parked launch dropped: the pull request was closed");
        const count = stopped.cancelled + stopped.cancelRequested;
        const disarmed = stopped.retriesDisarmed > 0 ? `, disarmed ${stopped.retriesDisarmed} retry(ies)` : "";
        const reason = `pull request closed: stopped ${count} run(s)${dropped > 0 ? `, dropped ${dropped} parked launch(es)` : ""}${disarmed}`;
        return { kind: "filtered", reason, stopped: count, deliveryId: await this.recordNow(row, "filtered", { reason }) };
      }
      case "defer": {
        const admitted = await admitAlone();
        if (admitted.kind !== "admitted") return refuse(admitted);
        const results: ParkResult[] = [];
        for (const plan of decision.launches) results.push(await this.deps.parked.park(row, plan, decision.eventAt));
        return { kind: "deferred", results };
      }
      case "launch": {
        const issue = decision.launches[0];
        // An issue with a card on the board is launched by its card alone, so `/approve` approves the card.
        const card = config.board_mode !== "off" && issue?.card?.approval ? await this.deps.cards.cardOf(config, issue) : undefined;
        if (card) {
          const admitted = await admitAlone();
          if (admitted.kind !== "admitted") return refuse(admitted);
          return this.approveOnBoard(row, issue!, card);
        }
        if (config.board_mode === "coordinate" && issue?.card) {
          const admitted = await admitAlone();
          if (admitted.kind !== "admitted") return refuse(admitted);
          return this.putOnBoard(config, row, issue);
        }
        const results: LaunchResultOf[] = [];
        // The first bot's launch writes the call's admission first; the others follow it.
        for (const [i, plan] of decision.launches.entries()) {
          const keyed = await this.keyed.launch(target, planRowOf(row, plan), plan, i === 0 ? admission : undefined);
          if (keyed.kind === "refused") return refuse(keyed.refusal);
          const result = resultOf(keyed, plan.botId);
          if (result.kind === "launched") for (const runId of plan.supersedes ?? []) await this.deps.runs.cancel(runId);
          if (result.kind === "launched" && config.board_mode === "track") await this.deps.cards.track(config, plan, result.runId);
          if (result.kind === "launched" && plan.gateFix) {
            await bumpGateStreak(this.deps.store.db, { webhookId: config.id, subjectId: plan.subjectId, gate: plan.gateFix.gate }, now);
          }
          results.push(result);
        }
        // Every bot's launch met a run a concurrent delivery launched: answered as a skipped overlap.
        if (results.every((r) => r.kind === "filtered")) {
          return { kind: "filtered", deliveryId: results[0]!.deliveryId, reason: results.map((r) => r.reason).join("; ") };
        }
        return { kind: "launch", results };
      }
      default: {
        const unreachable: never = decision;
        throw new Error(`unhandled decision ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /**
   * The body hashed, proven, then parsed (only a body that proves its signature or token is
   * parsed; on a body thread when the body is large and threads are on), and decided on: the
   * outcome's row and the decision. The raw bytes are let go once prepared ({@link DeliveryRequest})
   * and the parsed payload ends with this call: neither lives through the store's round trip.
   */
  private async evaluate(provider: ProviderName, target: DeliveryTarget, req: DeliveryRequest, auth: BodyAuth, now: number) {
    const { config, owner } = target;
    const body = await this.deps.bodies.prepare({ provider, headers: req.headers, rawBody: req.rawBody, auth });
    req.rawBody = NO_BODY;
    if (body.ok && body.byPrevious) this.deps.metrics.webhookPreviousSecretAccepted.inc({ provider });
    const isKnownBot = await this.knownBots(config, owner.orgId);
    const context: DeliveryContext = {
      botLogins: target.botLogins,
      syncDebounceMs: this.deps.syncDebounceMs,
      isKnownBot,
      ...(target.gate && { gate: target.gate }),
    };
    const evaluated = evaluateDelivery({
      config,
      headers: req.headers,
      body,
      context,
    });
    const row: Base = Object.assign(baseRow(config, req.sourceIp, now, body.rawSha256), summaryColumns(evaluated.summary));
    const asked = evaluated.decision;
    const decision = await this.deps.overlap.apply(config, asked.kind === "forge" ? await this.deps.forge.resolve(config, asked.check, context) : asked);
    return { row, decision };
  }

  /**
   * The gate lanes' run of fixes on a pull request: a pass ends it; a fix beyond the limit in a
   * row is filtered, and one within it is told its place (gate_fix_attempt, gate_fix_limit, and
   * gate_fix_last on the last one, so the bot can say on the pull request that it stops there).
   */
  private async holdGateFixes(config: WebhookConfig, decision: FinalDecision): Promise<FinalDecision> {
    const db = this.deps.store.db;
    const key = (subjectId: string, gate: string) => ({ webhookId: config.id, subjectId, gate });
    if (decision.kind === "filtered" && decision.gatePassed) await resetGateStreak(db, key(decision.gatePassed.subjectId, decision.gatePassed.gate));
    if (decision.kind !== "launch") return decision;
    const launches: LaunchPlan[] = [];
    for (const plan of decision.launches) {
      if (plan.gatePassed) await resetGateStreak(db, key(plan.subjectId, plan.gatePassed));
      if (!plan.gateFix) {
        launches.push(plan);
        continue;
      }
      const { gate, limit } = plan.gateFix;
      const done = await readGateStreak(db, key(plan.subjectId, gate));
      if (done >= limit) {
        return filtered(
          `gate ${gate} failed again after ${done} automatic fixes in a row on this pull request: no more until the gate passes on it (auto-fix limit ${limit})`,
        );
      }
      const attempt = done + 1;
      const told = { gate_fix_attempt: String(attempt), gate_fix_limit: String(limit), ...(attempt === limit && { gate_fix_last: "true" }) };
      launches.push({ ...plan, vars: { ...plan.vars, ...told } });
    }
    return { kind: "launch", launches };
  }

  /** Token mode's proof: the current token, else the previous one inside its window (counted). */
  private proveToken(provider: ProviderName, target: DeliveryTarget, presented: string, now: number): boolean {
    const proof = matchWebhookToken(target.secrets, presented, now);
    if (proof === "previous") this.deps.metrics.webhookPreviousSecretAccepted.inc({ provider });
    return proof !== undefined;
  }

  /** A call the bucket or the monthly quota refused: recorded under a key of its own. */
  private async refuse(provider: ProviderName, row: Base, refusal: CallRefusal, now: number): Promise<DeliveryOutcome> {
    this.deps.metrics.webhookThrottled.inc({ provider, reason: refusal.kind });
    const refusedFor = refusal.kind === "rate_limited" ? refusal.retryAfterSeconds * 1000 : QUOTA_RECHECK_MS;
    this.refusedUntil.set(row.webhook_id, now + refusedFor);
    if (refusal.kind === "rate_limited") {
      const deliveryId = await this.recordNow(row, "rate_limited", { reason: "webhook rate limit" });
      return { kind: "rate_limited", deliveryId, retryAfterSeconds: refusal.retryAfterSeconds };
    }
    const deliveryId = await this.recordNow(row, "quota_exceeded", { reason: `monthly call quota exceeded (${refusal.scope})` });
    return { kind: "quota_exceeded", deliveryId };
  }

  /** board_mode coordinate: the issue's card is the work; the delivery is pre-checked and the dispatcher launches the card. */
  private async putOnBoard(config: WebhookConfig, row: Base, plan: LaunchPlan): Promise<DeliveryOutcome> {
    const placed = await this.deps.cards.coordinate(config, plan);
    const base = Object.assign({}, row, { bot_id: plan.botId, subject_id: plan.subjectId });
    if (placed.kind === "denied") {
      const { denial } = placed;
      const deliveryId = await this.recordNow(base, "launch_error", { reason: denial.detail, denial_reason: denial.error, failed_at: row.created_at });
      return { kind: "launch", results: [{ kind: "denied", deliveryId, botId: plan.botId, denial }] };
    }
    const reason = `card ${placed.cardId} ${placed.created ? "put" : "already"} on the board: the dispatcher launches it`;
    const deliveryId = await this.recordNow(base, "accepted", { reason });
    return { kind: "carded", deliveryId, cardId: placed.cardId, created: placed.created };
  }

  /** `/approve` on an issue with a card: the card is approved when it waits (the dispatcher launches it), else nothing. */
  private async approveOnBoard(row: Base, plan: LaunchPlan, card: BoardCardRow): Promise<DeliveryOutcome> {
    const base = Object.assign({}, row, { bot_id: plan.botId, subject_id: plan.subjectId });
    if (!(await this.deps.cards.approve(card, plan))) {
      const reason = `card ${card.id} is not waiting for an approval: the board launches the issue`;
      return { kind: "filtered", reason, deliveryId: await this.recordNow(base, "filtered", { reason }) };
    }
    const reason = `card ${card.id} approved: the dispatcher launches it`;
    const deliveryId = await this.recordNow(base, "accepted", { reason });
    return { kind: "carded", deliveryId, cardId: card.id, created: false };
  }

  /** An untrusted author's issue: its card waits on the board for a team admin's approval; the reason says so. */
  private async parkForApproval(config: WebhookConfig, plan: LaunchPlan, reason: string): Promise<string> {
    const placed = await this.deps.cards.parkForApproval(config, plan);
    return `${reason}; card ${placed.cardId} waits on the board for approval`;
  }

  /** A non-launched row as a write of its own, counted once it is durable. */
  private async recordNow(row: Base, status: NewDelivery["status"], extra: Partial<NewDelivery>): Promise<string> {
    const id = this.deps.ids.next("dlv");
    await this.deps.store.ledger.commit({ row: recordedRow(row, status, extra, id) });
    this.deps.metrics.webhookDeliveries.inc({ provider: row.provider, status });
    return id;
  }

  /** The org's bot catalog is read only when the config can name a bot that is not built in. */
  private async knownBots(config: WebhookConfig, orgId: string): Promise<(id: string) => boolean> {
    const named = [...config.bot_ids, config.default_bot_id ?? "", ...(config.bot_rules ?? []).map((r) => r.bot_id)];
    if (!config.wildcard_bots && named.every((id) => id === "" || id === "*" || isBuiltinBot(id))) return isBuiltinBot;
    const known = new Set(await this.deps.bots.knownBotIds(orgId));
    return (id) => known.has(id);
  }
}

/**
 * What proves an hmac or standard webhook's body as of `now`: its secret, and the previous one
 * while its window is open (whenever the target was loaded); undefined without a secret.
 */
export function signatureAuth(target: DeliveryTarget, now: number): BodyAuth | undefined {
  const { config, secrets } = target;
  if (target.hmacSecret === undefined) return undefined;
  const previousSecret = target.previousHmacSecret !== undefined && acceptedPrevious(secrets, now) ? target.previousHmacSecret : undefined;
  return config.sign_mode === "standard"
    ? { mode: "standard", secret: target.hmacSecret, previousSecret, now }
    : { mode: "hmac", secret: target.hmacSecret, previousSecret };
}

/** The decision with each launch keyed apart by `salt` (a redelivery's fresh key). */
function withFreshKeys<D extends { kind: string }>(decision: D, salt: string): D {
  if (decision.kind !== "launch" && decision.kind !== "defer") return decision;
  const d = decision as D & { launches: LaunchPlan[] };
  return { ...d, launches: d.launches.map((p) => ({ ...p, idempotencyKey: `${p.idempotencyKey}|again:${salt}` })) };
}

/** One bot's result as the delivery's answer names it. */
function resultOf(k: Exclude<KeyedOutcome, { kind: "refused" }>, botId: string): LaunchResultOf {
  switch (k.kind) {
    case "launched":
      return { kind: "launched", deliveryId: k.deliveryId, runId: k.runId, botId };
    case "duplicate":
      return { kind: "duplicate", deliveryId: k.deliveryId, runId: k.holder.run_id, originalDeliveryId: k.holder.id, botId };
    case "denied":
      return { kind: "denied", deliveryId: k.deliveryId, botId, denial: k.denial };
    case "filtered":
      return { kind: "filtered", deliveryId: k.deliveryId, botId, reason: k.reason };
  }
}
