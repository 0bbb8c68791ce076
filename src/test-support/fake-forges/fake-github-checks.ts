import type { components } from "@octokit/openapi-types";
import { WORLD, type DeepPartial } from "./world.js";

/** A check run as the fake GitHub keeps it, and its REST shape (GitHub's OpenAPI description). */
export interface FakeCheckRun {
  id: number;
  repo: string;
  headSha: string;
  name: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string;
  title: string;
  summary: string;
}

export function checkRunBody(r: FakeCheckRun): DeepPartial<components["schemas"]["check-run"]> {
  return {
    id: r.id,
    node_id: `CR_${r.id}`,
    head_sha: r.headSha,
    external_id: "",
    url: `https://api.github.test/repos/${r.repo}/check-runs/${r.id}`,
    html_url: `https://github.test/${r.repo}/runs/${r.id}`,
    details_url: r.detailsUrl,
    status: r.status as "queued",
    conclusion: r.conclusion as "success" | null,
    started_at: WORLD.updatedAt,
    completed_at: r.status === "completed" ? WORLD.updatedAt : null,
    output: { title: r.title, summary: r.summary, text: null, annotations_count: 0, annotations_url: "" },
    name: r.name,
    check_suite: { id: 5 },
    pull_requests: [],
  };
}

/** A create or update's fields onto the check run; `completed` wants a conclusion, as GitHub asks. */
export function applyCheckRun(run: FakeCheckRun, b: Record<string, any>): FakeCheckRun {
  if (typeof b.status === "string") run.status = b.status;
  if (typeof b.conclusion === "string") {
    run.conclusion = b.conclusion;
    run.status = "completed";
  }
  if (run.status !== "completed") run.conclusion = null;
  if (typeof b.details_url === "string") run.detailsUrl = b.details_url;
  if (b.output) {
    run.title = String(b.output.title ?? "");
    run.summary = String(b.output.summary ?? "");
  }
  return run;
}
