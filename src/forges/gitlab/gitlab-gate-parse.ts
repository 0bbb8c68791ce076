import type { GateConclusion, GateReport, GateResult } from "../shared/delivery-event.js";
import { arrayAt, at, idAt, intAt, textAt, type JsonObject } from "../shared/json-guards.js";

/** GitLab's pipeline and job statuses. */
function gitlabConclusion(status: string | undefined): GateConclusion {
  if (status === "success") return "success";
  if (status === "failed") return "failure";
  return status === "running" || status === "pending" || status === "created" || status === "waiting_for_resource" || status === "preparing"
    ? "pending"
    : "other";
}

/** GitLab's Pipeline Hook: the pipeline by its name, and each job by its name (a commit status of that name). */
export function gitlabGate(root: JsonObject): GateReport {
  const attrs = at(root, "object_attributes");
  const url = textAt(attrs, "url");
  const results: GateResult[] = [];
  const name = textAt(attrs, "name");
  const state = textAt(attrs, "status") ?? "";
  if (name !== undefined) results.push({ name, state, conclusion: gitlabConclusion(state), detailsUrl: url });
  for (const build of arrayAt(root, "builds") ?? []) {
    const job = textAt(build, "name");
    const jobState = textAt(build, "status") ?? "";
    const id = idAt(build, "id");
    const jobUrl = url !== undefined && id !== undefined ? `${url.replace(/\/pipelines\/\d+$/, "")}/jobs/${id}` : url;
    if (job !== undefined) results.push({ name: job, state: jobState, conclusion: gitlabConclusion(jobState), detailsUrl: jobUrl });
  }
  const mr = intAt(root, "merge_request", "iid");
  return {
    results,
    sha: textAt(attrs, "sha"),
    runId: `pipeline:${idAt(attrs, "id") ?? ""}@${textAt(attrs, "finished_at") ?? ""}`,
    pulls: mr === undefined ? [] : [mr],
  };
}
