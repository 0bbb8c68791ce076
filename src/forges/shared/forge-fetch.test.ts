import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeServer } from "../../test-support/fake-forges/fake-server.js";
import { ForgeFailure } from "./forge-errors.js";
import { guardedFetch, isUnderApiRoot } from "./forge-fetch.js";
import { LaneBudget } from "./lane-budget.js";
import { loopbackNetwork } from "../../test-support/loopback-network.js";

describe("isUnderApiRoot", () => {
  const root = new URL("https://forge.example/gitlab/api/v4/");
  it.each([
    ["https://forge.example/gitlab/api/v4/projects/1", true],
    ["https://forge.example/gitlab/api/v4", true],
    ["https://forge.example/gitlab/api/v4x/projects", false],
    ["https://forge.example/other/api/v4/projects", false],
    ["http://forge.example/gitlab/api/v4/projects", false],
    ["https://forge.example:8443/gitlab/api/v4/projects", false],
    ["https://elsewhere.example/gitlab/api/v4/projects", false],
    ["https://user:pw@forge.example/gitlab/api/v4/projects", false],
  ])("%s → %s", (url, under) => {
    expect(isUnderApiRoot(new URL(url), root)).toBe(under);
  });
});

describe("guardedFetch", () => {
  let forge: FakeServer;
  beforeEach(async () => {
    forge = await FakeServer.start("/api", [
      { method: "GET", path: /^\/thing$/, answer: () => ({ status: 200, body: { ok: true } }) },
      { method: "POST", path: /^\/thing$/, answer: (_p, req) => ({ status: 201, body: req.body }) },
    ]);
  });
  afterEach(() => forge.close());

  const fetchFor = (budget = new LaneBudget(4_000), retryRateLimits = true) =>
    guardedFetch({
      apiRoot: new URL(`${forge.apiUrl}/`),
      authorization: "Bearer t0k3n",
      budget,
      callTimeoutMs: 2_000,
      retryRateLimits,
      network: loopbackNetwork(),
    });

  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof ForgeFailure ? e.error : e),
    );

  it("sends the token it holds, replacing any a library set", async () => {
    const res = await fetchFor()(`${forge.apiUrl}/thing`, { headers: { authorization: "token other" } });
    expect(res.status).toBe(200);
    expect(forge.requests[0]!.headers.authorization).toBe("Bearer t0k3n");
  });

  it("refuses a URL off the API root before sending anything", async () => {
    expect(await failureOf(fetchFor()(`${forge.url}/elsewhere`))).toMatchObject({ code: "forge_unavailable", reason: expect.stringContaining("refused") });
    expect(forge.requests).toHaveLength(0);
  });

  it("follows a 303 after a POST as a GET without the body, and a 307 as the same POST", async () => {
    forge.fault({ times: 1, match: /^POST/, redirectTo: `${forge.apiUrl}/thing`, status: 303 });
    const see = await fetchFor()(`${forge.apiUrl}/thing`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(see.status).toBe(200);
    expect(forge.requests.map((r) => [r.method, r.body])).toEqual([
      ["POST", { a: 1 }],
      ["GET", ""],
    ]);
  });

  it("repeats a POST's body across a 307", async () => {
    forge.fault({ times: 1, match: /^POST/, redirectTo: `${forge.apiUrl}/thing`, status: 307 });
    const res = await fetchFor()(`${forge.apiUrl}/thing`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ a: 1 });
    expect(forge.requests.map((r) => [r.method, r.body])).toEqual([
      ["POST", { a: 1 }],
      ["POST", { a: 1 }],
    ]);
  });

  it("stops a redirect loop", async () => {
    forge.fault({ redirectTo: `${forge.apiUrl}/thing` });
    expect(await failureOf(fetchFor()(`${forge.apiUrl}/thing`))).toMatchObject({ code: "forge_unavailable", reason: "the forge redirected without end" });
    expect(forge.requests).toHaveLength(4);
  });

  it("leaves rate limits to a library that waits them out itself", async () => {
    forge.fault({ times: 1, status: 429, headers: { "retry-after": "0" } });
    expect((await fetchFor(new LaneBudget(4_000), false)(`${forge.apiUrl}/thing`)).status).toBe(429);
    expect(forge.requests).toHaveLength(1);
  });

  it("stops waiting out a rate limit when the lane is called off", async () => {
    forge.fault({ status: 429, headers: { "retry-after": "2" } });
    const callOff = new AbortController();
    setTimeout(() => callOff.abort(), 100);
    const failure = await failureOf(fetchFor(new LaneBudget(4_000, callOff.signal))(`${forge.apiUrl}/thing`));
    expect(failure).toMatchObject({ code: "forge_unavailable", reason: expect.stringContaining("while waiting out a rate limit") });
    expect(forge.requests).toHaveLength(1);
  });
});
