import type { RunRow } from "../store/runs.js";
import { NEW_RUN } from "../store/schema/runs.js";
import type { LaunchRequest } from "./launch-types.js";

/** A new run's row: the schema's defaults, and what the request decides; `meterMonth` marks its first attempt as counted. */
export function newRunRow(request: LaunchRequest, id: string, orgId: string, now: number, meterMonth: string | null): RunRow {
  return {
    ...NEW_RUN,
    id,
    org_id: orgId,
    team_id: request.teamId,
    bot_id: request.botId,
    status: "queued",
    vars: JSON.stringify(request.vars),
    repo_url: request.repoUrl ?? null,
    repo_ref: request.repoRef ?? null,
    project_path: request.projectPath ?? null,
    connection_id: request.connectionId ?? null,
    subject_id: request.subjectId ?? null,
    parent_subject_id: request.parentSubjectId ?? null,
    webhook_id: request.webhookId ?? null,
    delivery_id: request.deliveryId ?? null,
    source: request.source,
    actor_user_id: request.actor.userId,
    actor_kind: request.actor.kind,
    metered_attempt: meterMonth ? 1 : 0,
    metered: meterMonth ? 1 : 0,
    metered_month: meterMonth,
    queued_at: now,
    created_at: now,
    updated_at: now,
  };
}
