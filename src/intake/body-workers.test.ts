import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../config/logger.js";
import { hashToken } from "../core/secrets.js";
import { BODY_WORKER_ENTRY } from "../test-support/harness.js";
import { BodyWorkers, MIN_OFFLOAD_BYTES } from "./body-workers.js";
import { fixtureBytes, githubExample, loadGithubExamples } from "./fixtures/fixtures.js";
import { prepareBody, type BodyJob } from "./prepare-body.js";
import { hmacSha256Hex } from "./verify-signature.js";

const examples = loadGithubExamples();
const SECRET = "wh_body_secret";
const TOKEN_HASH = hashToken(SECRET);

/** JSON text padded with trailing spaces (still the same JSON) to at least `min` bytes. */
const padded = (value: unknown, min = MIN_OFFLOAD_BYTES) => {
  const text = JSON.stringify(value);
  return Buffer.from(text.padEnd(Math.max(min, text.length), " "));
};

const github = (event: string, action: string, sign = true): BodyJob => {
  const rawBody = padded(githubExample(examples, event, action));
  const signature = sign ? hmacSha256Hex(SECRET, rawBody) : "0".repeat(64);
  return {
    provider: "forge_b", rawBody, key: { mode: "hmac", secret: SECRET },
    headers: { "x-github-event": event, "content-type": "application/json", "x-hub-signature-256": `sha256=${signature}` },
  };
};
const gitlab = (token: string): BodyJob => ({
  provider: "forge_a", rawBody: padded(JSON.parse(fixtureBytes("gitlab-merge-request-open").toString())),
  key: { mode: "token", secrets: { token_hash: TOKEN_HASH } }, headers: { "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": token },
});

/** Signed and unsigned, hmac and token, valid JSON and a truncated body. */
const corpus = (): BodyJob[] => {
  const truncated = github("pull_request", "opened");
  const cut = Buffer.from(truncated.rawBody).subarray(0, 5000);
  truncated.rawBody = cut;
  truncated.headers = { ...truncated.headers, "x-hub-signature-256": `sha256=${hmacSha256Hex(SECRET, cut)}` };
  return [
    github("pull_request", "opened"), github("issues", "labeled"), github("issue_comment", "created"), github("pull_request", "opened", false),
    gitlab(SECRET), gitlab("wh_wrong"), truncated,
  ];
};

describe("BodyWorkers", () => {
  const logs: string[] = [];
  const log = createLogger("debug", new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }));
  let pool: BodyWorkers | undefined;
  const open = (threads: number, entry = BODY_WORKER_ENTRY) => (pool = new BodyWorkers({ threads, entry, log }));
  afterEach(async () => {
    await pool?.close();
    logs.length = 0;
  });

  it("prepares each body on a thread exactly as in place, concurrently and in any mix", async () => {
    const jobs = corpus();
    const workers = open(2);
    const results = await Promise.all(jobs.flatMap((job) => [workers.prepare(job), workers.prepare(job)]));
    expect(results).toEqual(jobs.flatMap((job) => [prepareBody(job), prepareBody(job)]));
    expect(workers.offloaded).toBe(jobs.length * 2);
    expect(results.map((r) => (r.ok ? "ok" : r.code))).toEqual(["ok", "ok", "ok", "ok", "ok", "ok", "bad_signature", "bad_signature", "ok", "ok", "bad_signature", "bad_signature", "bad_payload", "bad_payload"]);
  });

  it("keeps small bodies, and every body when it has no threads, on the event loop", async () => {
    const small = github("pull_request", "opened");
    small.rawBody = Buffer.from("{}");
    const threaded = open(1);
    expect(await threaded.prepare(small)).toEqual(prepareBody(small));
    expect(threaded.offloaded).toBe(0);
    await threaded.close();
    const none = open(0);
    const job = github("pull_request", "opened");
    expect(await none.prepare(job)).toEqual(prepareBody(job));
    expect(none.offloaded).toBe(0);
  });

  it("reads a body that is a slice of a larger buffer as the slice alone", async () => {
    const job = github("pull_request", "opened");
    const framed = Buffer.concat([Buffer.from("garbage before"), job.rawBody, Buffer.from("after")]);
    const slice = { ...job, rawBody: framed.subarray(14, 14 + job.rawBody.length) };
    expect(await open(1).prepare(slice)).toEqual(prepareBody(job));
  });

  it("prepares the bodies of a thread that stops on the event loop, and waits before starting it again", async () => {
    const workers = open(1, new URL("data:text/javascript,process.exit(3)"));
    const jobs = corpus();
    expect(await Promise.all(jobs.map((job) => workers.prepare(job)))).toEqual(jobs.map(prepareBody));
    expect(logs.join("")).toContain("body thread stopped");
    const offloaded = workers.offloaded;
    expect(offloaded).toBe(jobs.length);
    // Within the restart delay the thread is not used.
    await workers.prepare(jobs[0]!);
    expect(workers.offloaded).toBe(offloaded);
  });

  it("after close, prepares bodies on the event loop", async () => {
    const workers = open(1);
    const job = github("pull_request", "opened");
    await workers.prepare(job);
    await workers.close();
    expect(await workers.prepare(job)).toEqual(prepareBody(job));
    expect(workers.offloaded).toBe(1);
  });
});
