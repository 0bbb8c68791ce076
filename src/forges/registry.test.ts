import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeForgejo } from "../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../test-support/fake-forges/fake-github.js";
import { DISCUSSION_ID, FakeGitLab } from "../test-support/fake-forges/fake-gitlab.js";
import { FakeServer } from "../test-support/fake-forges/fake-server.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import { PROVIDER_NAMES as NAME_TABLE, PROVIDERS } from "../webhooks/provider-names.js";
import type { CommentRef, ForgeClient, ForgeProviderName } from "./shared/forge-client.js";
import { ForgeClients, type ForgeClientsOptions } from "./forge-clients.js";
import { forges } from "./registry.js";
import type { ForgeRegistry } from "./shared/forge.js";
import { forgejo } from "./forgejo/forgejo.js";
import { github } from "./github/github.js";
import { gitlab } from "./gitlab/gitlab.js";
import { loopbackNetwork } from "../test-support/loopback-network.js";

const TOKEN = "secret-forge-token-0123456789";

/** Each forge's fake, and the comment each one's lanes would answer (in a thread where the forge has them). */
const CASES = {
  forge_a: { start: () => FakeGitLab.start(), answer: { commentId: "302", threadId: DISCUSSION_ID } },
  forge_b: { start: () => FakeGitHub.start(), answer: { commentId: "502", threadId: "501" } },
  forge_c: { start: () => FakeForgejo.start(), answer: { commentId: "9001" } },
} satisfies Record<ForgeProviderName, { start: () => Promise<{ server: FakeServer }>; answer: CommentRef }>;

const PROVIDER_NAMES = Object.keys(forges) as ForgeProviderName[];

describe("forge client registry", () => {
  it("holds every provider but generic, each a forge of its own", () => {
    expect(PROVIDER_NAMES.sort()).toEqual(PROVIDERS.filter((p) => p !== "generic").sort());
    expect(new Set(PROVIDER_NAMES.map((name) => forges[name])).size).toBe(PROVIDER_NAMES.length);
  });

  it("holds under each name the forge the table of provider names gives it", () => {
    for (const name of PROVIDER_NAMES) expect(forges[name].name).toBe(NAME_TABLE[name].forge);
    for (const name of PROVIDER_NAMES) expect(forges[name].provider.name).toBe(name);
  });

  it("is a compile error with a forge missing, one too many, or one under another's name", () => {
    // Each line below fails to compile (the type check runs over the tests); at run time they are only values.
    // @ts-expect-error forge_c left out
    const missing = { forge_a: gitlab, forge_b: github } satisfies ForgeRegistry;
    // @ts-expect-error a forge the table does not name
    const extra = { forge_a: gitlab, forge_b: github, forge_c: forgejo, forge_d: forgejo } satisfies ForgeRegistry;
    // @ts-expect-error GitHub under GitLab's name
    const swapped = { forge_a: github, forge_b: github, forge_c: forgejo } satisfies ForgeRegistry;
    // @ts-expect-error Forgejo named as another forge than the table's
    const renamed = { forge_a: gitlab, forge_b: github, forge_c: { ...forgejo, name: "gitea" } } satisfies ForgeRegistry;
    expect([missing, extra, swapped, renamed]).toHaveLength(4);
  });
});

describe.each(PROVIDER_NAMES)("%s conformance against its fake", (provider) => {
  let fake: { server: FakeServer };
  let elsewhere: FakeServer;
  let logged: string[];

  beforeEach(async () => {
    fake = await CASES[provider].start();
    elsewhere = await FakeServer.start("", []);
    logged = [];
  });
  afterEach(async () => {
    await fake.server.close();
    await elsewhere.close();
    expect(logged.join("\n")).not.toContain(TOKEN);
  });

  const open = (options: ForgeClientsOptions = {}): ForgeClient => {
    const line = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    const clients = new ForgeClients({ network: loopbackNetwork(), log: { debug: line, info: line, warn: line, error: line }, ...options });
    const opened = clients.open(provider, { forgeBaseUrl: fake.server.url, token: TOKEN });
    if (!opened.ok) throw new Error(opened.message);
    return opened.client;
  };

  it("answers every call of the interface from the standard repository", async () => {
    const client = open();
    const answer: CommentRef = CASES[provider].answer;
    expect(client.provider).toBe(provider);
    expect(await client.permissionOf(WORLD.repo, WORLD.maria.login)).toEqual({ ok: true, value: "developer" });
    const pr = await client.pullRequest(WORLD.repo, WORLD.number);
    expect(pr.ok && [pr.value.state, pr.value.headRepoId, pr.value.baseRepoId, pr.value.headSha]).toEqual(["open", WORLD.repoId, WORLD.repoId, WORLD.headSha]);
    if (answer.threadId === undefined) expect(client.reviewThread).toBeNull();
    else {
      const thread = await client.reviewThread!(WORLD.repo, WORLD.number, answer.threadId);
      expect(thread.ok && thread.value.comments.map((c) => c.authorLogin)).toEqual([WORLD.bot.login, WORLD.maria.login]);
    }
    expect((await client.postReply(WORLD.repo, WORLD.number, answer, "On it.")).ok).toBe(true);
    expect(await client.react(WORLD.repo, WORLD.number, answer, "eyes")).toEqual({ ok: true, value: undefined });
    expect(await client.tokenOwner()).toEqual({ ok: true, value: WORLD.bot });
    for (const r of fake.server.requests) expect(r.headers.authorization).toMatch(new RegExp(`^(Bearer|token) ${TOKEN}$`));
  });

  it.each([
    [500, "forge_unavailable"],
    [502, "forge_unavailable"],
    [401, "forge_denied"],
    [403, "forge_denied"],
    [404, "not_found"],
    [422, "forge_rejected"],
  ] as const)("gives %i as %s", async (status, code) => {
    fake.server.fault({ status });
    const result = await open().pullRequest(WORLD.repo, WORLD.number);
    expect(result).toEqual({ ok: false, error: { code, status, reason: `the forge answered ${status}` } });
  });

  it("gives up on a slow forge at the lane's deadline, not when the forge answers", async () => {
    fake.server.fault({ delayMs: 10_000 });
    const started = Date.now();
    const result = await open({ laneDeadlineMs: 300 }).permissionOf(WORLD.repo, WORLD.maria.login);
    expect(result).toMatchObject({ ok: false, error: { code: "forge_unavailable" } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("bounds each request by the per-call timeout, inside the lane's deadline", async () => {
    fake.server.fault({ delayMs: 10_000 });
    // A lane deadline far off: on a busy host the default one (4 s) could pass first and be the reason given.
    const result = await open({ callTimeoutMs: 200, laneDeadlineMs: 60_000 }).tokenOwner();
    expect(result).toEqual({ ok: false, error: { code: "forge_unavailable", reason: "the forge did not answer within 200 ms" } });
  });

  it("makes no call once the lane's deadline has passed", async () => {
    const client = open({ laneDeadlineMs: 50 });
    await new Promise((r) => setTimeout(r, 80));
    expect(await client.tokenOwner()).toMatchObject({ ok: false, error: { code: "forge_unavailable" } });
    expect(fake.server.requests).toHaveLength(0);
  });

  it("answers rate_limited at once when the forge's wait would outlast the lane", async () => {
    fake.server.fault({ status: 429, headers: { "retry-after": "60" } });
    const started = Date.now();
    const result = await open().tokenOwner();
    expect(result).toEqual({ ok: false, error: { code: "rate_limited", status: 429, reason: "the forge rate-limited the token (429)", retryAfterMs: 60_000 } });
    expect(fake.server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("reads a 403 with an exhausted quota as rate_limited, with the wait until its reset", async () => {
    const reset = Math.floor(Date.now() / 1000) + 600;
    fake.server.fault({ status: 403, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) } });
    const result = await open().tokenOwner();
    expect(result).toMatchObject({ ok: false, error: { code: "rate_limited", status: 403 } });
    expect(fake.server.requests).toHaveLength(1);
  });

  it("calls a forge that cannot be reached forge_unavailable", async () => {
    const client = open();
    await fake.server.close();
    expect(await client.tokenOwner()).toMatchObject({
      ok: false,
      error: { code: "forge_unavailable", reason: expect.stringContaining("could not be reached") },
    });
  });

  it("never follows a redirect to another host: the token stays home", async () => {
    fake.server.fault({ redirectTo: `${elsewhere.url}${fake.server.prefix}/user` });
    const result = await open().tokenOwner();
    expect(result).toMatchObject({ ok: false, error: { code: "forge_unavailable", reason: expect.stringContaining("redirected off its API") } });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("follows a redirect within the forge's API, token and all", async () => {
    fake.server.fault({ times: 1, redirectTo: `${fake.server.apiUrl}/user` });
    expect(await open().tokenOwner()).toEqual({ ok: true, value: WORLD.bot });
    expect(fake.server.requests.map((r) => r.headers.authorization)).toEqual([expect.stringContaining(TOKEN), expect.stringContaining(TOKEN)]);
  });
});
