import { lineFault, textFault } from "../../core/names.js";
import { nulField, nulMessage } from "../../core/nul-field.js";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { MAX_VAR_VALUE_BYTES, MAX_VARS, VAR_KEY_RE } from "../../webhooks/field-parsers.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../pipeline/delivery-decision.js";
import type { GenericEvent } from "../../forges/shared/delivery-event.js";
import { projectAllowed } from "../pipeline/filters.js";
import { genericKey } from "../pipeline/idempotency-keys.js";
import { asObject, at } from "../../forges/shared/json-guards.js";
import { layerVars } from "../pipeline/launch-vars.js";
import { routeBots } from "../pipeline/route-bots.js";

export interface GenericRequest {
  bot?: string;
  vars: Record<string, string>;
  idempotencyKey?: string;
  repoUrl?: string;
  repoRef?: string;
  projectPath?: string;
}

export type GenericRead = { ok: true; request: GenericRequest } | { ok: false; decision: DeliveryDecision };

const bad = (reason: string): Refusal => ({ ok: false, decision: invalid("bad_payload", reason) });

type Refusal = Extract<GenericRead, { ok: false }>;
type GenericStrings = Partial<Record<"bot" | "idempotency_key" | "repo_url" | "repo_ref" | "project_path", string>>;
const refused = (x: object): x is Refusal => (x as Partial<Refusal>).ok === false;

/** Reads the spec's generic body; wrong types are 400s, the limits carry the spec's messages. */
export function readGenericRequest(body: unknown): GenericRead {
  const strings = readStrings(body);
  if (refused(strings)) return strings;
  const vars = readVars(body);
  if (refused(vars)) return vars;
  const fault = textRefusal(strings, vars);
  if (fault) return fault;
  return {
    ok: true,
    request: {
      bot: strings.bot,
      vars: Object.fromEntries(vars),
      idempotencyKey: strings.idempotency_key,
      repoUrl: strings.repo_url,
      repoRef: strings.repo_ref,
      projectPath: strings.project_path,
    },
  };
}

/** The body's string fields, trimmed; an empty one is left out. */
function readStrings(body: unknown): GenericStrings | Refusal {
  const strings: GenericStrings = {};
  for (const field of ["bot", "idempotency_key", "repo_url", "repo_ref", "project_path"] as const) {
    const v = at(body, field);
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") return bad(`generic: ${field} must be a string`);
    if (v.trim() !== "") strings[field] = v.trim();
  }
  return strings;
}

/** The body's variables, within the spec's limits on their number, keys and values. */
function readVars(body: unknown): Map<string, string> | Refusal {
  const rawVars = at(body, "vars");
  const varsObj = rawVars === undefined || rawVars === null ? {} : asObject(rawVars);
  if (varsObj === undefined) return bad("generic: vars must be an object");
  const entries = Object.entries(varsObj);
  if (entries.length > MAX_VARS) return { ok: false, decision: invalid("too_many_vars", "generic: too many vars") };
  const vars = new Map<string, string>();
  for (const [key, value] of entries) {
    if (!VAR_KEY_RE.test(key)) return { ok: false, decision: invalid("bad_var_key", "bad var key") };
    if (typeof value !== "string") return bad(`generic: var ${key} must be a string`);
    if (Buffer.byteLength(value, "utf8") > MAX_VAR_VALUE_BYTES) {
      return { ok: false, decision: invalid("var_value_too_large", "var value too large") };
    }
    vars.set(key, value);
  }
  return vars;
}

/** No NUL anywhere, then the one text rule of every stored field (core/names): single-line fields, then variables' values. */
function textRefusal(strings: GenericStrings, vars: Map<string, string>): Refusal | undefined {
  const nul = nulField(strings, Object.fromEntries(vars));
  if (nul) return { ok: false, decision: invalid("nul_character", `generic: ${nulMessage(nul)}`) };
  for (const field of ["bot", "repo_url", "repo_ref", "project_path"] as const) {
    const fault = strings[field] === undefined ? undefined : lineFault(strings[field]);
    if (fault) return bad(`generic: ${field} ${fault}`);
  }
  for (const [key, value] of vars) {
    const fault = textFault(value);
    if (fault) return bad(`generic: var ${key} ${fault}`);
  }
  return undefined;
}

/** One launch of the named (or default, or single in-scope) bot; no review-pr fallback. */
export function decideGeneric(config: WebhookConfig, event: GenericEvent, context: DeliveryContext): DeliveryDecision {
  const read = readGenericRequest(event.body);
  if (!read.ok) return read.decision;
  const req = read.request;
  const project = projectAllowed(config.project_allowlist, req.projectPath);
  if (!project.pass) return filtered(project.reason);
  const routing = routeBots(config, context.isKnownBot, { lane: "generic", kind: "generic", requestedBot: req.bot });
  if (!routing.ok) return routing.decision;
  const requestKey = req.idempotencyKey ?? event.rawSha256;
  return {
    kind: "launch",
    launches: routing.bots.map((bot) => ({
      botId: bot.botId,
      // Body vars first; the webhook's layers override them.
      vars: layerVars(req.vars, bot.ruleVars, config.operator_launch_vars, config.launch_vars),
      idempotencyKey: genericKey(config.tenant_id, config.id, requestKey),
      subjectId: `generic:${requestKey}`,
      projectPath: req.projectPath ?? "",
      repoUrl: req.repoUrl,
      repoRef: req.repoRef,
    })),
  };
}
