import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { GITEA_DRAFT_PREFIXES } from "./draft-title.js";
import { githubShapedPull } from "./github-shaped-pull.js";

const FORGEJO = { draftTitlePrefixes: GITEA_DRAFT_PREFIXES, headRepoId: true } as const;

/** The standard pull request, as both forges give it. */
const FACTS = {
  state: "open",
  draft: false,
  headRepoId: WORLD.repoId,
  baseRepoId: WORLD.repoId,
  headRepoFullName: WORLD.repo,
  baseRepoFullName: WORLD.repo,
  headSha: WORLD.headSha,
  headRef: WORLD.headRef,
  baseRef: WORLD.baseRef,
  authorLogin: WORLD.maria.login,
  labels: [...WORLD.labels],
  updatedAt: WORLD.updatedAt,
  title: "Faster sprockets",
};

describe("a GitHub-shaped pull request, read from the fake forges' answers", () => {
  let github: FakeGitHub;
  let forgejo: FakeForgejo;
  const answer = async (fake: { server: { apiUrl: string } }) => {
    const res = await fetch(`${fake.server.apiUrl}/repos/${WORLD.repo}/pulls/${WORLD.number}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { head: Record<string, unknown> } & Record<string, unknown>;
  };

  beforeAll(async () => {
    github = await FakeGitHub.start();
    forgejo = await FakeForgejo.start();
  });
  afterAll(async () => {
    await github.server.close();
    await forgejo.server.close();
  });

  it("reads GitHub's and Forgejo's answers into the same facts", async () => {
    expect(githubShapedPull(await answer(github))).toEqual({ ...FACTS, webUrl: `https://github.test/${WORLD.repo}/pull/${WORLD.number}` });
    expect(githubShapedPull(await answer(forgejo), FORGEJO)).toEqual({ ...FACTS, webUrl: `https://forgejo.test/${WORLD.repo}/pulls/${WORLD.number}` });
  });

  it("reads a merged pull as merged, by its flag or its merge time", async () => {
    Object.assign(github.pull(), { state: "closed", merged: true });
    const body = await answer(github);
    expect(githubShapedPull(body).state).toBe("merged");
    // A listed pull carries no `merged`: its merge time says.
    expect(githubShapedPull({ ...body, merged: undefined }).state).toBe("merged");
    expect(githubShapedPull({ ...body, merged: undefined, merged_at: null }).state).toBe("closed");
    Object.assign(github.pull(), { state: "open", merged: false });
  });

  it("takes a draft by its title only with the option, and only where the answer has no draft field", async () => {
    Object.assign(forgejo.pull(), { draft: undefined, title: "WIP: faster sprockets" });
    const untitled = await answer(forgejo);
    expect(untitled).not.toHaveProperty("draft");
    expect(githubShapedPull(untitled, FORGEJO).draft).toBe(true);
    expect(githubShapedPull(untitled).draft).toBe(false);
    Object.assign(forgejo.pull(), { draft: false });
    expect(githubShapedPull(await answer(forgejo), FORGEJO).draft).toBe(false);
    Object.assign(forgejo.pull(), { draft: false, title: "Faster sprockets" });
  });

  it("names the head repository by repo_id only with the option; a deleted fork's (repo_id 0) is none", async () => {
    const body = await answer(forgejo);
    const { repo: _repo, ...headWithoutRepo } = body.head;
    expect(githubShapedPull({ ...body, head: headWithoutRepo }, FORGEJO)).toMatchObject({ headRepoId: WORLD.repoId, headRepoFullName: null });
    expect(githubShapedPull({ ...body, head: headWithoutRepo }).headRepoId).toBeNull();

    forgejo.pull().headRepo = null;
    expect(githubShapedPull(await answer(forgejo), FORGEJO)).toMatchObject({ headRepoId: null, headRepoFullName: null });
    github.pull().headRepo = null;
    expect(githubShapedPull(await answer(github))).toMatchObject({ headRepoId: null, headRepoFullName: null });
  });

  it("refuses an answer that is not a pull request as the forge failing", async () => {
    const body = await answer(github);
    expect(() => githubShapedPull({ ...body, base: null })).toThrow(expect.objectContaining({ error: expect.objectContaining({ code: "forge_unavailable" }) }));
  });
});
