import type { ProviderName } from "../../webhooks/webhook-config.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";

export type FilterResult = { pass: true } | { pass: false; reason: string };

const PASS: FilterResult = { pass: true };
const fail = (reason: string): FilterResult => ({ pass: false, reason });

/** Logins compare case-insensitively, a leading @ optional. */
export function normaliseLogin(login: string): string {
  return login.trim().replace(/^@/, "").toLowerCase();
}

/** Spec "Event selection defaults": forge_b/forge_c's issues path defaults to issues. */
export function defaultEventAllowlist(provider: ProviderName): readonly string[] {
  switch (provider) {
    case "forge_a":
      return ["merge_request", "note"];
    case "forge_b":
    case "forge_c":
      return ["pull_request", "issues"];
    case "generic":
      return ["*"];
  }
}

/**
 * An entry matches `*`, the normalised kind (`merge_request`, `issues` …) or the vendor's
 * event header value (`Merge Request Hook`, `issue_comment`), case-insensitively.
 */
export function eventAllowed(provider: ProviderName, allowlist: readonly string[], event: ForgeEvent): FilterResult {
  const entries = allowlist.length > 0 ? allowlist : defaultEventAllowlist(provider);
  const names = new Set([event.kind, event.eventName.trim().toLowerCase()]);
  const hit = entries.some((e) => {
    const entry = e.trim().toLowerCase();
    return entry === "*" || names.has(entry);
  });
  return hit ? PASS : fail(`event not in event_allowlist: ${event.eventName || event.kind}`);
}

/** Exact path, `owner/*` (the owner's subgroups too) or `*`; empty allows every project. */
export function projectAllowed(allowlist: readonly string[], projectPath: string | undefined): FilterResult {
  if (allowlist.length === 0) return PASS;
  if (projectPath === undefined) return fail("project not named in the payload");
  const path = projectPath.toLowerCase();
  const hit = allowlist.some((raw) => {
    const p = raw.trim().toLowerCase();
    if (p === "*") return true;
    if (p.endsWith("/*")) return path.startsWith(p.slice(0, -1)) && path.length > p.length - 1;
    return p === path;
  });
  return hit ? PASS : fail(`project not in project_allowlist: ${projectPath}`);
}

/** Webhook author_allowlist: exact logins or `*`; an unnamed author fails a real list closed. */
export function authorAllowed(allowlist: readonly string[], author: string | undefined): FilterResult {
  if (allowlist.length === 0) return PASS;
  const entries = allowlist.map(normaliseLogin);
  if (entries.includes("*")) return PASS;
  if (author === undefined) return fail("author not named in the payload");
  return entries.includes(normaliseLogin(author)) ? PASS : fail(`author not in author_allowlist: ${author}`);
}

/**
 * Bot-rule author patterns: exact, or a leading `*` matching a longer login with the same
 * ending (`*-bot` matches `deploy-bot`, not `-bot`).
 */
export function loginMatches(pattern: string, login: string): boolean {
  const p = normaliseLogin(pattern);
  const l = normaliseLogin(login);
  if (p.startsWith("*")) {
    const suffix = p.slice(1);
    return l.length > suffix.length && l.endsWith(suffix);
  }
  return p === l;
}

/**
 * hold_labels: `*` holds every auto-launch; otherwise any carried hold label holds. A payload
 * without labels fails open (the spec's rule).
 */
export function notHeld(holdLabels: readonly string[], labels: readonly string[] | undefined): FilterResult {
  if (holdLabels.length === 0) return PASS;
  const holds = holdLabels.map((l) => l.trim().toLowerCase());
  if (holds.includes("*")) return fail("held: hold_labels holds everything (*)");
  if (labels === undefined) return PASS;
  const hit = labels.find((l) => holds.includes(l.trim().toLowerCase()));
  return hit === undefined ? PASS : fail(`held by label: ${hit}`);
}

/** label_allowlist (issue-labeled path only): empty or `*` allows any label; case-insensitive. */
export function labelAllowed(allowlist: readonly string[], label: string): boolean {
  if (allowlist.length === 0) return true;
  const l = label.trim().toLowerCase();
  return allowlist.some((a) => {
    const entry = a.trim().toLowerCase();
    return entry === "*" || entry === l;
  });
}

/** A proven fork never auto-launches; `unknown` fails closed unless the provider lets it pass. */
export function notFork(event: ForgeEvent, unknownPasses: boolean): FilterResult {
  switch (event.fork.state) {
    case "same":
      return PASS;
    case "fork":
      return fail(`fork: ${event.fork.head} → ${event.fork.base}`);
    case "unknown":
      return unknownPasses ? PASS : fail("fork check: head repo not named");
  }
}
