import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import type { ForgeClient } from "../shared/forge-client.js";
import { ForgeClients } from "../forge-clients.js";
import { loopbackNetwork } from "../../test-support/loopback-network.js";

const TOKEN = "ghp_FAKEtoken0123456789";

describe("forge_b: GitHub through octokit, against a fake GitHub Enterprise", () => {
  let fake: FakeGitHub;
  let logged: string[];
  let client: ForgeClient;

  beforeEach(async () => {
    fake = await FakeGitHub.start();
    logged = [];
    const line = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    const opened = new ForgeClients({ network: loopbackNetwork(), log: { debug: line, info: line, warn: line, error: line } }).open("forge_b", {
      forgeBaseUrl: fake.server.url,
      token: TOKEN,
    });
    if (!opened.ok) throw new Error(opened.message);
    client = opened.client;
  });
  afterEach(() => fake.server.close());

  const only = () => {
    expect(fake.server.requests).toHaveLength(1);
    return fake.server.requests[0]!;
  };

  it("asks a collaborator's permission, token as Bearer, under /api/v3", async () => {
    expect(await client.permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "developer" });
    const req = only();
    expect(req.method).toBe("GET");
    expect(req.path).toBe("/api/v3/repos/acme/widgets/collaborators/maria/permission");
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("reads triage and maintain from role_name, which the legacy permission folds away", async () => {
    fake.roles.set(`${WORLD.repo}\ntriager`, "triage");
    fake.roles.set(`${WORLD.repo}\nkeeper`, "maintain");
    fake.roles.set(`${WORLD.repo}\nauditor`, "security-auditor");
    expect(await client.permissionOf(WORLD.repo, "triager")).toEqual({ ok: true, value: "reporter" });
    expect(await client.permissionOf(WORLD.repo, "keeper")).toEqual({ ok: true, value: "maintainer" });
    // A custom role falls back to its base permission (read here).
    expect(await client.permissionOf(WORLD.repo, "auditor")).toEqual({ ok: true, value: "guest" });
  });

  it("finds the newest submitted review by one of the given authors", async () => {
    expect(await client.latestReview(WORLD.repo, 7, ["Review-Bot"])).toEqual({ ok: true, value: { authorLogin: WORLD.bot.login, body: WORLD.review } });
    expect(await client.latestReview(WORLD.repo, 7, ["nobody"])).toEqual({ ok: true, value: null });
    expect(fake.server.requests[0]?.path).toBe("/api/v3/repos/acme/widgets/pulls/7/reviews?per_page=100");
  });

  it("reads a pull request into facts", async () => {
    const repo = { id: WORLD.repoId, fullName: WORLD.repo };
    expect(await client.pullRequest(WORLD.repo, 7)).toEqual({
      ok: true,
      value: {
        state: "open",
        draft: false,
        headRepoId: repo.id,
        baseRepoId: repo.id,
        headRepoFullName: repo.fullName,
        baseRepoFullName: repo.fullName,
        headSha: WORLD.headSha,
        headRef: WORLD.headRef,
        baseRef: WORLD.baseRef,
        authorLogin: "maria",
        labels: ["backend"],
        updatedAt: WORLD.updatedAt,
        webUrl: "https://github.test/acme/widgets/pull/7",
        title: "Faster sprockets",
      },
    });
    expect(only().path).toBe("/api/v3/repos/acme/widgets/pulls/7");
  });

  it("says merged for a merged pull request and no head repository for a deleted fork", async () => {
    Object.assign(fake.pull(), { state: "closed", merged: true, draft: true, headRepo: null });
    const result = await client.pullRequest(WORLD.repo, 7);
    expect(result.ok && result.value).toMatchObject({ state: "merged", draft: true, headRepoId: null, headRepoFullName: null });
  });

  it("collects a review thread from every page of the pull request's review comments", async () => {
    const comments = fake.reviewComments.get(`${WORLD.repo}#7`)!;
    for (let i = 0; i < 150; i++) comments.splice(1, 0, { id: 1000 + i, author: WORLD.maria, body: "other", createdAt: WORLD.createdAt });
    comments.push({ id: 700, inReplyTo: 501, author: WORLD.bot, body: "A pool would do.", createdAt: WORLD.updatedAt });
    const result = await client.reviewThread!(WORLD.repo, 7, "501");
    expect(result).toEqual({
      ok: true,
      value: {
        id: "501",
        comments: [
          { id: "501", authorLogin: "review-bot", authorId: 99, body: "This loop allocates on every call.", createdAt: WORLD.createdAt },
          { id: "502", authorLogin: "maria", authorId: 42, body: "Would a pool help here?", createdAt: WORLD.updatedAt },
          { id: "700", authorLogin: "review-bot", authorId: 99, body: "A pool would do.", createdAt: WORLD.updatedAt },
        ],
      },
    });
    expect(fake.server.requests.map((r) => r.path)).toEqual([
      "/api/v3/repos/acme/widgets/pulls/7/comments?per_page=100",
      "/api/v3/repos/acme/widgets/pulls/7/comments?per_page=100&page=2",
    ]);
  });

  it("calls a thread that is not there not_found", async () => {
    expect(await client.reviewThread!(WORLD.repo, 7, "502")).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("replies in a review thread through its replies endpoint", async () => {
    const result = await client.postReply(WORLD.repo, 7, { commentId: "502", threadId: "501" }, "Yes: see the pool in v2.");
    expect(result).toEqual({ ok: true, value: { id: expect.stringMatching(/^\d+$/) } });
    const req = only();
    expect([req.method, req.path, req.body]).toEqual(["POST", "/api/v3/repos/acme/widgets/pulls/7/comments/501/replies", { body: "Yes: see the pool in v2." }]);
  });

  it("answers a conversation comment as an issue comment", async () => {
    expect((await client.postReply(WORLD.repo, 7, { commentId: "9001" }, "Not permitted.")).ok).toBe(true);
    const req = only();
    expect([req.method, req.path, req.body]).toEqual(["POST", "/api/v3/repos/acme/widgets/issues/7/comments", { body: "Not permitted." }]);
  });

  it("reacts on an issue comment and on a review comment, each at its own path", async () => {
    expect(await client.react(WORLD.repo, 7, { commentId: "9001" }, "eyes")).toEqual({ ok: true, value: undefined });
    expect(await client.react(WORLD.repo, 7, { commentId: "502", threadId: "501" }, "eyes")).toEqual({ ok: true, value: undefined });
    expect(fake.server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/api/v3/repos/acme/widgets/issues/comments/9001/reactions", { content: "eyes" }],
      ["POST", "/api/v3/repos/acme/widgets/pulls/comments/502/reactions", { content: "eyes" }],
    ]);
  });

  it("names the token's owner", async () => {
    expect(await client.tokenOwner()).toEqual({ ok: true, value: { login: "review-bot", id: 99 } });
    expect(only().path).toBe("/api/v3/user");
  });

  it("waits out an exhausted quota once when its reset fits the lane (octokit's throttling)", async () => {
    const reset = String(Math.ceil(Date.now() / 1000));
    fake.server.fault({
      times: 1,
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
      body: { message: "API rate limit exceeded" },
    });
    expect(await client.tokenOwner()).toMatchObject({ ok: true });
    expect(fake.server.requests).toHaveLength(2);
  });

  it("calls a secondary rate limit rate_limited even when GitHub sends it as a bare 403", async () => {
    fake.server.fault({ status: 403, body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." } });
    expect(await client.tokenOwner()).toMatchObject({ ok: false, error: { code: "rate_limited" } });
    expect(fake.server.requests).toHaveLength(1);
  });

  it("retries a 500 once (octokit's retry plugin) and logs the failures without the token", async () => {
    fake.server.fault({ times: 1, status: 500 });
    expect(await client.tokenOwner()).toMatchObject({ ok: true });
    expect(fake.server.requests).toHaveLength(2);
    expect(logged.join("\n")).toContain("GET /user - 500");
    expect(logged.join("\n")).not.toContain(TOKEN);
  });
});
