import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import type { ForgeClient } from "../shared/forge-client.js";
import { ForgeClients } from "../forge-clients.js";
import { loopbackNetwork } from "../../test-support/loopback-network.js";

const TOKEN = "0123456789abcdef0123456789abcdef01234567";

describe("forge_c: Forgejo through gitea-js, against a fake Forgejo", () => {
  let fake: FakeForgejo;
  let client: ForgeClient;

  beforeEach(async () => {
    fake = await FakeForgejo.start();
    const opened = new ForgeClients({ network: loopbackNetwork() }).open("forge_c", { forgeBaseUrl: fake.server.url, token: TOKEN });
    if (!opened.ok) throw new Error(opened.message);
    client = opened.client;
  });
  afterEach(() => fake.server.close());

  const only = () => {
    expect(fake.server.requests).toHaveLength(1);
    return fake.server.requests[0]!;
  };

  it("asks a collaborator's permission, token in Gitea's `token` form, under /api/v1", async () => {
    expect(await client.permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "developer" });
    const req = only();
    expect([req.method, req.path]).toEqual(["GET", "/api/v1/repos/acme/widgets/collaborators/maria/permission"]);
    expect(req.headers.authorization).toBe(`token ${TOKEN}`);
  });

  it("maps each access mode Forgejo reports", async () => {
    for (const [mode, role] of [
      ["none", "none"],
      ["read", "guest"],
      ["write", "developer"],
      ["admin", "owner"],
      ["owner", "owner"],
    ] as const) {
      fake.users.set(`u-${mode}`, { login: `u-${mode}`, id: 500 });
      fake.access.set(`${WORLD.repo}\nu-${mode}`, mode);
      expect(await client.permissionOf(WORLD.repo, `u-${mode}`)).toEqual({ ok: true, value: role });
    }
  });

  it("calls a token that is not a repository admin forge_denied (Forgejo's 403)", async () => {
    fake.tokenIsRepoAdmin = false;
    expect(await client.permissionOf(WORLD.repo, "maria")).toMatchObject({ ok: false, error: { code: "forge_denied", status: 403 } });
  });

  it("encodes path parameters itself (gitea-js does not) and refuses a login that is not a word", async () => {
    fake.users.set("dev[bot]", { login: "dev[bot]", id: 7 });
    expect(await client.permissionOf(WORLD.repo, "dev[bot]")).toEqual({ ok: true, value: "none" });
    expect(only().path).toBe("/api/v1/repos/acme/widgets/collaborators/dev%5Bbot%5D/permission");
    expect(await client.permissionOf(WORLD.repo, "../../admin")).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await client.permissionOf("acme/widgets/extra", "maria")).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(fake.server.requests).toHaveLength(1);
  });

  it("finds the newest review by one of the given authors", async () => {
    expect(await client.latestReview(WORLD.repo, 7, [WORLD.bot.login])).toEqual({ ok: true, value: { authorLogin: WORLD.bot.login, body: WORLD.review } });
    expect(await client.latestReview(WORLD.repo, 7, ["nobody"])).toEqual({ ok: true, value: null });
  });

  it("reads a pull request into facts", async () => {
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
        webUrl: "https://forgejo.test/acme/widgets/pulls/7",
        title: "Faster sprockets",
      },
    });
    expect(only().path).toBe("/api/v1/repos/acme/widgets/pulls/7");
  });

  it("reads a draft from the title on versions without the draft field, and a deleted fork as no head repository", async () => {
    Object.assign(fake.pull(), { draft: undefined, title: "WIP: faster sprockets", headRepo: null, state: "closed", merged: true });
    const result = await client.pullRequest(WORLD.repo, 7);
    expect(result.ok && result.value).toMatchObject({ draft: true, headRepoId: null, headRepoFullName: null, state: "merged" });
  });

  it("has no review-thread reader", () => {
    expect(client.reviewThread).toBeNull();
  });

  it("answers in the pull request's conversation", async () => {
    expect(await client.postReply(WORLD.repo, 7, { commentId: "9001" }, "Not permitted.")).toEqual({ ok: true, value: { id: expect.stringMatching(/^\d+$/) } });
    const req = only();
    expect([req.method, req.path, req.body]).toEqual(["POST", "/api/v1/repos/acme/widgets/issues/7/comments", { body: "Not permitted." }]);
  });

  it("reacts on the comment", async () => {
    expect(await client.react(WORLD.repo, 7, { commentId: "9001" }, "eyes")).toEqual({ ok: true, value: undefined });
    const req = only();
    expect([req.method, req.path, req.body]).toEqual(["POST", "/api/v1/repos/acme/widgets/issues/comments/9001/reactions", { content: "eyes" }]);
  });

  it("names the token's owner", async () => {
    expect(await client.tokenOwner()).toEqual({ ok: true, value: { login: "review-bot", id: 99 } });
    expect(only().path).toBe("/api/v1/user");
  });
});
