import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Db } from "../store/store.js";
import { insertAudit } from "../store/tenancy.js";

export interface AuditEntry {
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  orgId?: string | null;
  teamId?: string | null;
  /** Never a secret: callers pass names, ids and flags only. */
  detail?: Record<string, unknown>;
}

/** Writes one audit row, inside the caller's transaction when `db` is one. */
export class AuditLog {
  constructor(private readonly deps: { clock: Clock; ids: IdGenerator }) {}

  record(db: Db, entry: AuditEntry): Promise<void> {
    return insertAudit(db, {
      id: this.deps.ids.next("aud"),
      at: this.deps.clock.now(),
      actor_id: entry.actorId,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      org_id: entry.orgId ?? null,
      team_id: entry.teamId ?? null,
      detail: JSON.stringify(entry.detail ?? {}),
    });
  }
}
