import type { GateConclusion, GateReport, GateResult } from "../shared/delivery-event.js";
import { arrayAt, at, idAt, intAt, textAt, type JsonObject } from "../shared/json-guards.js";

/**
 * CI gate results as GitHub reports them (`check_run`, `check_suite` and `status`), and Forgejo
 * (`status`). Only the fields the gate lanes read are named.
 */

/** GitHub's check conclusions: only a completed run concludes; timed out and a failed start are failures. */
function checkConclusion(status: string | undefined, conclusion: string | undefined): GateConclusion {
  if (status !== undefined && status !== "completed") return "pending";
  if (conclusion === "success") return "success";
  return conclusion === "failure" || conclusion === "timed_out" || conclusion === "startup_failure" ? "failure" : "other";
}

/** A commit status (GitHub and Forgejo): error is a failure; Forgejo's warning is neither. */
function statusConclusion(state: string | undefined): GateConclusion {
  if (state === "success") return "success";
  if (state === "failure" || state === "error") return "failure";
  return state === "pending" ? "pending" : "other";
}

const numbersOf = (list: readonly unknown[] | undefined): number[] => (list ?? []).flatMap((p) => intAt(p, "number") ?? []);

/** GitHub's and Forgejo's gate events; undefined for any other event. */
export function githubLikeGate(eventName: string, root: JsonObject): GateReport | undefined {
  switch (eventName.toLowerCase()) {
    case "check_run": {
      const run = at(root, "check_run");
      const name = textAt(run, "name");
      if (name === undefined) return undefined;
      const state = textAt(run, "conclusion") ?? textAt(run, "status") ?? "";
      const result: GateResult = {
        name,
        state,
        conclusion: checkConclusion(textAt(run, "status"), textAt(run, "conclusion")),
        detailsUrl: textAt(run, "details_url") ?? textAt(run, "html_url"),
      };
      return { results: [result], sha: textAt(run, "head_sha"), runId: `check_run:${idAt(run, "id") ?? ""}`, pulls: numbersOf(arrayAt(run, "pull_requests")) };
    }
    case "check_suite": {
      const suite = at(root, "check_suite");
      // A suite is named by the app that runs it.
      const names = [textAt(suite, "app", "name"), textAt(suite, "app", "slug")].flatMap((n) => n ?? []);
      const state = textAt(suite, "conclusion") ?? textAt(suite, "status") ?? "";
      const conclusion = checkConclusion(textAt(suite, "status"), textAt(suite, "conclusion"));
      return {
        results: names.map((name) => ({ name, state, conclusion, detailsUrl: undefined })),
        sha: textAt(suite, "head_sha"),
        runId: `check_suite:${idAt(suite, "id") ?? ""}@${textAt(suite, "updated_at") ?? ""}`,
        pulls: numbersOf(arrayAt(suite, "pull_requests")),
      };
    }
    case "status": {
      const context = textAt(root, "context");
      if (context === undefined) return undefined;
      const state = textAt(root, "state") ?? "";
      return {
        results: [{ name: context, state, conclusion: statusConclusion(state), detailsUrl: textAt(root, "target_url") }],
        sha: textAt(root, "sha"),
        runId: `status:${idAt(root, "id") ?? ""}@${textAt(root, "updated_at") ?? ""}`,
        pulls: [],
      };
    }
    default:
      return undefined;
  }
}
