import type { KnownBots } from "../runs/runs-api.js";
import { conflict, invalid } from "../core/errors.js";
import { isUniqueViolation } from "../store/errors.js";
import type { Db, Store } from "../store/store.js";
import type { Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { checkLine, checkName } from "../core/names.js";
import { nulField, nulMessage } from "../core/nul-field.js";
import { varMap } from "../webhooks/field-parsers.js";
import { iso } from "../core/iso.js";

/** What a schedule or a trigger subscription launches, as a create or update body names it. */
export interface LaunchTargetInput {
  name?: string;
  bot?: string;
  vars?: Record<string, string>;
  repo_url?: string | null;
  repo_ref?: string | null;
  project_path?: string | null;
  enabled?: boolean;
}

/** No NUL in any text field, and each of the repository's fields one line. */
function checkTextFields(input: LaunchTargetInput): void {
  const nul = nulField({
    bot: input.bot,
    repo_url: input.repo_url ?? undefined,
    repo_ref: input.repo_ref ?? undefined,
    project_path: input.project_path ?? undefined,
  });
  if (nul) throw invalid(nul, nulMessage(nul));
  for (const field of ["repo_url", "repo_ref", "project_path"] as const) {
    const value = input[field];
    if (typeof value === "string") checkLine(value, field);
  }
}

/** The columns those fields set, checked: a name, a bot the org may launch, run variables, no NUL. */
export async function launchTargetColumns(input: LaunchTargetInput, orgId: string, bots: KnownBots) {
  checkTextFields(input);
  if (input.bot !== undefined && !(await bots.isKnownBot(orgId, input.bot))) throw invalid("bot", `unknown bot ${input.bot}`);
  return {
    ...(input.name !== undefined && { name: checkName(input.name) }),
    ...(input.bot !== undefined && { bot_id: input.bot }),
    ...(input.vars !== undefined && { vars: JSON.stringify(varMap(input.vars, "vars")) }),
    ...(input.repo_url !== undefined && { repo_url: input.repo_url || null }),
    ...(input.repo_ref !== undefined && { repo_ref: input.repo_ref || null }),
    ...(input.project_path !== undefined && { project_path: input.project_path || null }),
    ...(input.enabled !== undefined && { enabled: input.enabled ? 1 : 0 }),
  };
}

/** The view fields a schedule and a subscription share. */
export function launchTargetView(r: {
  id: string;
  team_id: string;
  name: string;
  bot_id: string;
  vars: string;
  repo_url: string | null;
  repo_ref: string | null;
  project_path: string | null;
  enabled: number;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
  updated_at: number;
}) {
  return {
    id: r.id,
    team_id: r.team_id,
    name: r.name,
    bot: r.bot_id,
    vars: JSON.parse(r.vars) as Record<string, string>,
    repo_url: r.repo_url,
    repo_ref: r.repo_ref,
    project_path: r.project_path,
    enabled: r.enabled === 1,
    last_error: r.last_error,
    last_error_at: iso(r.last_error_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** A named surface's write and its audit row in one transaction; a second of the team's name is 409. */
export async function auditedWrite(
  deps: { store: Store; audit: AuditLog },
  p: Principal,
  target: { type: string; id: string; teamId: string; action: string; nameTaken: string },
  fn: (db: Db) => Promise<void>,
): Promise<void> {
  try {
    await deps.store.tx(async (tx) => {
      await fn(tx);
      await deps.audit.record(tx, { actorId: p.userId, action: target.action, targetType: target.type, targetId: target.id, teamId: target.teamId });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(target.nameTaken);
    throw err;
  }
}
