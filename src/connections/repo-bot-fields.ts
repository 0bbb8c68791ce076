import { invalid } from "../core/errors.js";
import type { ForgeProviderName } from "../forges/shared/forge-client.js";
import { PROVIDER_NAMES } from "../webhooks/provider-names.js";

/** The repo-bots body as the route's schema lets it through. */
export interface RepoBotInput {
  connection_id: string;
  repo: string;
  bot_ids?: string[];
  launch_vars?: Record<string, string>;
  overlap?: string;
  auto_fix_on_gate_failure?: boolean;
  /** The review launches when the gate passes on the head instead of on open and push (default false). */
  review_after_gate?: boolean;
  hold_labels?: string[];
  label_allowlist?: string[];
  gate_context?: string;
  webhook_base_url?: string;
  security_read_enabled?: boolean;
  /** The provisioned webhook's `report_status` (default: on for a provisioned repository). */
  report_status?: boolean;
}

/** Fields that live on the provisioned webhook config; an omitted one leaves the stored value alone. */
const WEBHOOK_FIELDS = ["bot_ids", "launch_vars", "overlap", "hold_labels", "label_allowlist", "report_status"] as const;

export function webhookFieldsOf(input: RepoBotInput): Record<string, unknown> {
  return Object.fromEntries(WEBHOOK_FIELDS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
}

/** A gate context as stored and shown: an empty (or blank) one is none, null. */
export function gateContextOf(context: string | null | undefined): string | null {
  return context === undefined || context === null || context.trim() === "" ? null : context;
}

/** Spec rule 1: the base pin and the security token are changed by separate requests. */
export function checkRepoBotInput(input: RepoBotInput): void {
  if (input.webhook_base_url !== undefined && input.security_read_enabled !== undefined) {
    throw invalid("security_read_enabled", "send webhook_base_url and security_read_enabled in separate requests");
  }
}

const SEGMENT = /^(?!\.\.?$)[\w.-]+$/;

/** A forge path: `owner/name`, or a project's full path where the forge's groups nest (GitLab; the table of provider names says). */
export function checkRepoPath(provider: ForgeProviderName, repo: string): string {
  const nested = PROVIDER_NAMES[provider].nestedPaths;
  const segments = repo.split("/");
  const shaped = segments.every((s) => SEGMENT.test(s)) && (nested ? segments.length >= 2 : segments.length === 2);
  if (!shaped) throw invalid("repo", nested ? "repo must be a project path (group/name)" : "repo must be owner/name");
  return repo;
}
