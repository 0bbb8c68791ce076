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
import type { CallLimits } from "../store/delivery-ledger.js";
import type { Store } from "../store/store.js";
import { providerNamed } from "../webhooks/provider-names.js";
import type { ProviderName, WebhookConfig } from "../webhooks/webhook-config.js";
import { acceptedPrevious, matchWebhookToken } from "../webhooks/webhook-token.js";
import { checkDeliveryToken } from "../forges/shared/check-delivery-token.js";
import { filtered, type FinalDecision } from "./pipeline/delivery-decision.js";
import { readGateStreak, resetGateStreak } from "../store/gate-streaks.js";
import type { DeliveryContext } from "./pipeline/delivery-context.js";
import { evaluateDelivery } from "./evaluate-delivery.js";
import type { ForgeStep } from "./lanes/forge/forge-step.js";
import type { OverlapStep } from "./pipeline/overlap.js";
import type { DeliveryTarget, DeliveryTargets } from "./delivery-targets.js";
import type { BodyBatch } from "./pipeline/body-batch.js";
import type { BodyAuth } from "../forges/shared/provider.js";
import { providers } from "../forges/providers.js";
import { baseRow, summaryColumns, type Base } from "./delivery-rows.js";
import type { DeliveryHead, DeliveryOpening, DeliveryOutcome, DeliveryRequest, OpenDelivery } from "./delivery-outcome.js";
import type { ParkedLaunches } from "./parked-launches.js";
import { KeyedLaunches } from "./keyed-launch.js";
import { DeliveryWrites } from "./delivery-writes.js";
import { DeliveryCall, type OutcomeDeps } from "./delivery-call.js";
import { handleOutcome } from "./outcome-handlers.js";
import type { IssueCards } from "./issue-cards.js";
import type { LaunchPlan } from "./pipeline/launch-plan.js";
import type { PreparedBody } from "./pipeline/prepare-body.js";
import { decisionSpan, verifySpan } from "./delivery-spans.js";

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

/** The call's admission, taken once before its body is proven: refused, or pending (undefined once written alone). */
type TakenAdmission = { kind: "refused"; outcome: DeliveryOutcome } | { kind: "pending"; limits: CallLimits | undefined };

/**
 * The delivery endpoint: the admission gates in the spec's order, then the provider's
 * verify → parse → decide, then the decision's outcome handler (outcome-handlers.ts). The call's
 * admission (bucket and monthly quota) is written with the outcome's first write, so the body is
 * proven, parsed and decided on before it; the gates' order still decides the answer. Every row
 * is committed before the outcome is returned, so a 2xx always means stored.
 */
export class DeliveryIntake {
  private readonly writes: DeliveryWrites;
  private readonly outcomes: OutcomeDeps;

  constructor(private readonly deps: DeliveryIntakeDeps) {
    this.writes = new DeliveryWrites(deps);
    this.outcomes = { ...deps, keyed: new KeyedLaunches(deps), writes: this.writes };
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
    const provider = providerNamed(head.provider);
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
          outcome: { kind: "bad_token", deliveryId: await this.writes.recordNow(row, "invalid", { reason: check.reason, refusal_code: "bad_token" }) },
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

  /** The rest of the gates and the body's outcome, for a delivery {@link open} let through: target → proof → prepare → decide → handle. */
  async receive(opened: OpenDelivery, req: DeliveryRequest): Promise<DeliveryOutcome> {
    const { target, auth } = opened;
    const now = this.deps.clock.now();
    const admission = await this.takeAdmission(target, req, now);
    if (admission.kind === "refused") return admission.outcome;
    if (!auth) return noSecret(new DeliveryCall(this.outcomes, target, earlyRow(target, req, now), now, admission.limits));
    const { row, decision } = await this.evaluate(opened.provider, target, req, auth, now);
    return handleOutcome(decision, new DeliveryCall(this.outcomes, target, row, now, admission.limits));
  }

  /**
   * The call's admission, as a value: pending, to be written with the outcome's first write; or
   * written alone first when the org's status refuses the call anyway, or while this webhook's
   * calls are being refused, so that a flood of them is not proven and parsed.
   */
  private async takeAdmission(target: DeliveryTarget, req: DeliveryRequest, now: number): Promise<TakenAdmission> {
    const { config, owner } = target;
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
    if (owner.org.status === "active" && !this.writes.refusedLately(config.id, now)) return { kind: "pending", limits };
    const admitted = await this.deps.store.ledger.admit(limits);
    if (admitted.kind !== "admitted") return { kind: "refused", outcome: await this.writes.refuse(earlyRow(target, req, now), admitted, now) };
    this.writes.admitted(config.id);
    if (owner.org.status !== "active") return { kind: "refused", outcome: { kind: "org_suspended" } };
    return { kind: "pending", limits: undefined };
  }

  /**
   * The body hashed, proven, then parsed (only a body that proves its signature or token is
   * parsed; on a body thread when the body is large and threads are on), and decided on: the
   * outcome's row and the decision. The raw bytes are let go once prepared ({@link DeliveryRequest})
   * and the parsed payload ends with this call: neither lives through the store's round trip.
   */
  private async evaluate(provider: ProviderName, target: DeliveryTarget, req: DeliveryRequest, auth: BodyAuth, now: number) {
    const { config } = target;
    const body = await verifySpan(provider, config.sign_mode, () => this.deps.bodies.prepare({ provider, headers: req.headers, rawBody: req.rawBody, auth }));
    req.rawBody = NO_BODY;
    if (body.ok && body.byPrevious) this.deps.metrics.webhookPreviousSecretAccepted.inc({ provider });
    return decisionSpan(() => this.decide(target, req, body, now));
  }

  /** The proven (or refused) body's decision, after the forge checks, the overlap and the gate's run of fixes. */
  private async decide(target: DeliveryTarget, req: DeliveryRequest, body: PreparedBody, now: number) {
    const { config, owner } = target;
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
    const decided = await this.deps.overlap.apply(config, asked.kind === "forge" ? await this.deps.forge.resolve(config, asked.check, context) : asked);
    const held = await this.holdGateFixes(config, decided);
    // A redelivery that asked for a fresh key: its launches are keyed apart from the original's.
    return { row, decision: req.keySalt === undefined ? held : withFreshKeys(held, req.keySalt) };
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

/** A delivery's row before its body is proven: for a refusal by the call's admission, or a webhook without a secret. */
function earlyRow(target: DeliveryTarget, req: DeliveryRequest, now: number): Base {
  return baseRow(target.config, req.sourceIp, now, sha256Hex(req.rawBody));
}

/** An hmac webhook without a signing secret: every delivery is refused until it is rotated. */
function noSecret(call: DeliveryCall): Promise<DeliveryOutcome> {
  const reason = "webhook has no signing secret; rotate it";
  return call.record("invalid", "no signing secret", (deliveryId) => ({ kind: "invalid", httpStatus: 401, reason, deliveryId }), "no_secret");
}
