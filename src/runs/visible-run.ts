import { ServiceError, notFound } from "../core/errors.js";
import { findRun, type RunRow } from "../store/runs.js";
import type { Db } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";

/** The run, if the caller may see it with `need` in its team; a run of another team is reported as not found. */
export async function visibleRun(db: Db, access: Access, p: Principal, runId: string, need: "member" | "admin"): Promise<RunRow> {
  const run = await findRun(db, runId);
  if (!run) throw notFound("run");
  try {
    await access.team(p, run.team_id, need);
  } catch (err) {
    if (err instanceof ServiceError && err.code === "not_found") throw notFound("run");
    throw err;
  }
  return run;
}
