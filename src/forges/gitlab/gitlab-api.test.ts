import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DISCUSSION_ID, FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import type { ForgeClient } from "../shared/forge-client.js";
import { ForgeClients } from "../forge-clients.js";
import { loopbackNetwork } from "../../test-support/loopback-network.js";

const TOKEN = "glpat-FAKEtoken0123456789";

describe("forge_a: GitLab through gitbeaker, against a fake GitLab", () => {
  let fake: FakeGitLab;
  let client: ForgeClient;

  beforeEach(async () => {
    fake = await FakeGitLab.start();
    const opened = new ForgeClients({ network: loopbackNetwork() }).open("forge_a", { forgeBaseUrl: fake.server.url, token: TOKEN });
    if (!opened.ok) throw new Error(opened.message);
    client = opened.client;
  });
  afterEach(() => fake.server.close());

  const sent = () => fake.server.requests.map((r) => [r.method, r.path]);

  it("finds the login's user id, then its membership including inherited ones; token as Bearer", async () => {
    expect(await client.permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "developer" });
    expect(sent()).toEqual([
      ["GET", "/api/v4/users?username=maria"],
      ["GET", "/api/v4/projects/acme%2Fwidgets/members/all/42"],
    ]);
    for (const r of fake.server.requests) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fake.server.requests[0]!.headers["private-token"]).toBeUndefined();
  });

  it("calls a non-member, and a login GitLab does not know, none", async () => {
    fake.users.set("stranger", { login: "stranger", id: 77 });
    expect(await client.permissionOf(WORLD.repo, "stranger")).toEqual({ ok: true, value: "none" });
    expect(await client.permissionOf(WORLD.repo, "nobody")).toEqual({ ok: true, value: "none" });
  });

  it("maps each access level GitLab reports", async () => {
    const cases: [number, string][] = [
      [5, "none"],
      [10, "guest"],
      [15, "guest"],
      [20, "reporter"],
      [30, "developer"],
      [40, "maintainer"],
      [50, "owner"],
    ];
    for (const [level, role] of cases) {
      fake.users.set(`u${level}`, { login: `u${level}`, id: 1000 + level });
      fake.accessLevels.set(`${WORLD.repoId}\n${1000 + level}`, level);
      expect(await client.permissionOf(WORLD.repo, `u${level}`)).toEqual({ ok: true, value: role });
    }
  });

  it("takes the newest non-system note by one of the given authors as their review, one page newest first", async () => {
    expect(await client.latestReview(WORLD.repo, 7, [WORLD.bot.login])).toEqual({ ok: true, value: { authorLogin: WORLD.bot.login, body: WORLD.review } });
    expect(await client.latestReview(WORLD.repo, 7, ["nobody"])).toEqual({ ok: true, value: null });
    expect(fake.server.requests[0]?.path).toMatch(/^\/api\/v4\/projects\/acme%2Fwidgets\/merge_requests\/7\/notes\?/);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("reads a merge request into facts", async () => {
    expect(await client.pullRequest(WORLD.repo, 7)).toEqual({
      ok: true,
      value: {
        state: "open",
        draft: false,
        headRepoId: WORLD.repoId,
        baseRepoId: WORLD.repoId,
        headRepoFullName: WORLD.repo,
        baseRepoFullName: WORLD.repo,
        headSha: WORLD.headSha,
        headRef: WORLD.headRef,
        baseRef: WORLD.baseRef,
        authorLogin: "maria",
        labels: ["backend"],
        updatedAt: WORLD.updatedAt,
        webUrl: "https://gitlab.test/acme/widgets/-/merge_requests/7",
        title: "Faster sprockets",
      },
    });
    expect(sent()).toEqual([["GET", "/api/v4/projects/acme%2Fwidgets/merge_requests/7"]]);
  });

  it("names a fork merge request's source project by id only, and reads merged and draft", async () => {
    Object.assign(fake.mergeRequest(), { sourceProjectId: WORLD.fork.id, state: "merged", draft: true });
    const result = await client.pullRequest(WORLD.repo, 7);
    expect(result.ok && result.value).toMatchObject({
      state: "merged",
      draft: true,
      headRepoId: WORLD.fork.id,
      headRepoFullName: null,
      baseRepoId: WORLD.repoId,
    });
  });

  it("reads a discussion's notes, leaving GitLab's system notes out", async () => {
    expect(await client.reviewThread!(WORLD.repo, 7, DISCUSSION_ID)).toEqual({
      ok: true,
      value: {
        id: DISCUSSION_ID,
        comments: [
          { id: "301", authorLogin: "review-bot", authorId: 99, body: "This loop allocates on every call.", createdAt: WORLD.createdAt },
          { id: "302", authorLogin: "maria", authorId: 42, body: "Would a pool help here?", createdAt: WORLD.updatedAt },
        ],
      },
    });
    expect(sent()).toEqual([["GET", `/api/v4/projects/acme%2Fwidgets/merge_requests/7/discussions/${DISCUSSION_ID}`]]);
  });

  it("replies in the note's discussion, or on the merge request when there is none", async () => {
    expect(await client.postReply(WORLD.repo, 7, { commentId: "302", threadId: DISCUSSION_ID }, "A pool would do.")).toEqual({
      ok: true,
      value: { id: expect.any(String) },
    });
    expect((await client.postReply(WORLD.repo, 7, { commentId: "302" }, "Not permitted.")).ok).toBe(true);
    expect(fake.server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", `/api/v4/projects/acme%2Fwidgets/merge_requests/7/discussions/${DISCUSSION_ID}/notes`, { body: "A pool would do." }],
      ["POST", "/api/v4/projects/acme%2Fwidgets/merge_requests/7/notes", { body: "Not permitted." }],
    ]);
  });

  it("awards the note an emoji", async () => {
    expect(await client.react(WORLD.repo, 7, { commentId: "302", threadId: DISCUSSION_ID }, "eyes")).toEqual({ ok: true, value: undefined });
    const [req] = fake.server.requests;
    expect([req!.method, req!.path, req!.body]).toEqual(["POST", "/api/v4/projects/acme%2Fwidgets/merge_requests/7/notes/302/award_emoji", { name: "eyes" }]);
  });

  it("names the token's owner", async () => {
    expect(await client.tokenOwner()).toEqual({ ok: true, value: { login: "review-bot", id: 99 } });
    expect(sent()).toEqual([["GET", "/api/v4/user"]]);
  });

  it("waits out a 429 once when its Retry-After fits the lane (the guarded fetch; gitbeaker's own retry is bypassed)", async () => {
    fake.server.fault({ times: 1, status: 429, headers: { "retry-after": "1", "ratelimit-remaining": "0" } });
    expect(await client.tokenOwner()).toMatchObject({ ok: true });
    expect(fake.server.requests).toHaveLength(2);
  });
});
