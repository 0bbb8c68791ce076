import { describe, expect, it } from "vitest";
import { hashToken } from "../../core/secrets.js";
import { tokenMatches } from "../../webhooks/webhook-token.js";
import { BodyBatch } from "./body-batch.js";
import { fixtureBytes, githubExample, loadGithubExamples } from "../fixtures/fixtures.js";
import { prepareBody, type BodyJob } from "./prepare-body.js";
import { hmacSha256Hex } from "../../forges/shared/verify-signature.js";

const examples = loadGithubExamples();
const SECRET = "wh_body_secret";
const TOKEN_HASH = hashToken(SECRET);

/** JSON text padded with trailing spaces (still the same JSON) to at least `min` bytes. */
const padded = (value: unknown, min = 4096) => {
  const text = JSON.stringify(value);
  return Buffer.from(text.padEnd(Math.max(min, text.length), " "));
};

const github = (event: string, action: string, sign = true): BodyJob => {
  const rawBody = padded(githubExample(examples, event, action));
  const signature = sign ? hmacSha256Hex(SECRET, rawBody) : "0".repeat(64);
  return {
    provider: "forge_b",
    rawBody,
    auth: { mode: "hmac", secret: SECRET },
    headers: { "x-github-event": event, "content-type": "application/json", "x-hub-signature-256": `sha256=${signature}` },
  };
};
const gitlab = (token: string): BodyJob => ({
  provider: "forge_a",
  rawBody: padded(JSON.parse(fixtureBytes("gitlab-merge-request-open").toString())),
  auth: { mode: "token", verifyToken: (presented) => tokenMatches({ token_hash: TOKEN_HASH }, presented) },
  headers: { "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": token },
});

/** Signed and unsigned, hmac and token, valid JSON and a truncated body. */
const corpus = (): BodyJob[] => {
  const truncated = github("pull_request", "opened");
  const cut = Buffer.from(truncated.rawBody).subarray(0, 5000);
  truncated.rawBody = cut;
  truncated.headers = { ...truncated.headers, "x-hub-signature-256": `sha256=${hmacSha256Hex(SECRET, cut)}` };
  return [
    github("pull_request", "opened"),
    github("issues", "labeled"),
    github("issue_comment", "created"),
    github("pull_request", "opened", false),
    gitlab(SECRET),
    gitlab("wh_wrong"),
    truncated,
  ];
};

describe("BodyBatch", () => {
  it("prepares each body exactly as prepareBody does, many at once and in any mix", async () => {
    const jobs = corpus();
    const batch = new BodyBatch();
    const results = await Promise.all(jobs.flatMap((job) => [batch.prepare(job), batch.prepare(job)]));
    expect(results).toEqual(jobs.flatMap((job) => [prepareBody(job), prepareBody(job)]));
    expect(results.map((r) => (r.ok ? "ok" : r.code))).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "bad_signature",
      "bad_signature",
      "ok",
      "ok",
      "bad_signature",
      "bad_signature",
      "bad_payload",
      "bad_payload",
    ]);
  });

  it("prepares the bodies queued in one turn together, after the turn", async () => {
    const batch = new BodyBatch();
    let settled = 0;
    const pending = corpus().map((job) => batch.prepare(job).then(() => settled++));
    await Promise.resolve();
    expect(settled).toBe(0);
    await Promise.all(pending);
    expect(settled).toBe(pending.length);
  });

  it("reads a body that is a slice of a larger buffer as the slice alone", async () => {
    const job = github("pull_request", "opened");
    const framed = Buffer.concat([Buffer.from("garbage before"), job.rawBody, Buffer.from("after")]);
    const slice = { ...job, rawBody: framed.subarray(14, 14 + job.rawBody.length) };
    expect(await new BodyBatch().prepare(slice)).toEqual(prepareBody(job));
  });
});
