import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../core/clock.js";
import { FakeGitHub } from "../test-support/fake-forges/fake-github.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import type { ForgeProviderName } from "./shared/forge-client.js";
import { ForgeClients } from "./forge-clients.js";
import { forges } from "./registry.js";
import { parseForgeBaseUrl } from "./shared/forge-target.js";
import { loopbackNetwork } from "../test-support/loopback-network.js";

describe("API roots", () => {
  it.each([
    ["forge_b", null, "https://api.github.com/"],
    ["forge_b", "https://github.com", "https://api.github.com/"],
    ["forge_b", "https://ghe.example.com", "https://ghe.example.com/api/v3/"],
    ["forge_b", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/"],
    ["forge_a", null, "https://gitlab.com/api/v4/"],
    ["forge_a", "https://git.example.com/gitlab/", "https://git.example.com/gitlab/api/v4/"],
    ["forge_a", "https://git.example.com/api/v4", "https://git.example.com/api/v4/"],
    ["forge_c", null, null],
    ["forge_c", "https://code.example.org", "https://code.example.org/api/v1/"],
    ["forge_c", "http://127.0.0.1:3000/api/v1", "http://127.0.0.1:3000/api/v1/"],
  ] as const)("%s with forge_base_url %s → %s", (provider: ForgeProviderName, base, root) => {
    const parsed = parseForgeBaseUrl(base);
    if (parsed === "bad") throw new Error("unexpected");
    expect(forges[provider].api.apiRoot(parsed)?.href ?? null).toBe(root);
  });

  it.each(["ftp://forge.example", "https://user:pw@forge.example", "https://forge.example/?x=1", "https://forge.example/#x", "not a url"])(
    "refuses forge_base_url %s",
    (base) => {
      expect(new ForgeClients().open("forge_a", { forgeBaseUrl: base, token: "t" })).toMatchObject({ ok: false, reason: "bad_base_url" });
    },
  );

  it("opens no client without a token", () => {
    expect(new ForgeClients().open("forge_b", { forgeBaseUrl: null, token: "" })).toMatchObject({ ok: false, reason: "no_token" });
  });

  it("cannot call forge_c without a forge_base_url, and says so as a value", () => {
    expect(new ForgeClients().open("forge_c", { forgeBaseUrl: null, token: "t" })).toMatchObject({ ok: false, reason: "no_base_url" });
    expect(new ForgeClients().open("forge_c", { forgeBaseUrl: "  ", token: "t" })).toMatchObject({ ok: false, reason: "no_base_url" });
  });
});

describe("the permission cache", () => {
  let fake: FakeGitHub;
  let clock: ManualClock;
  let clients: ForgeClients;
  beforeEach(async () => {
    fake = await FakeGitHub.start();
    clock = new ManualClock();
    // octokit logs each failed request; these tests fail some on purpose.
    const quiet = () => {};
    clients = new ForgeClients({ network: loopbackNetwork(), clock, permissionTtlMs: 5_000, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
  });
  afterEach(() => fake.server.close());

  const lane = (c = clients) => {
    const opened = c.open("forge_b", { forgeBaseUrl: fake.server.url, token: "t" });
    if (!opened.ok) throw new Error(opened.message);
    return opened.client;
  };
  const asked = () => fake.server.requests.filter((r) => r.path.endsWith("/permission")).length;

  it("answers a later lane from the cache within the TTL, and asks again after it", async () => {
    expect(await lane().permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "developer" });
    clock.advance(4_999);
    expect(await lane().permissionOf("ACME/widgets", "Maria")).toEqual({ ok: true, value: "developer" });
    expect(asked()).toBe(1);
    clock.advance(1);
    fake.roles.set(`${WORLD.repo}\nmaria`, "read");
    expect(await lane().permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "guest" });
    expect(asked()).toBe(2);
  });

  it("keys on repository and login, and keeps no failure", async () => {
    fake.roles.set("acme/gears\nmaria", "admin");
    expect(await lane().permissionOf("acme/gears", "maria")).toEqual({ ok: true, value: "owner" });
    expect(await lane().permissionOf(WORLD.repo, "maria")).toEqual({ ok: true, value: "developer" });
    fake.server.fault({ times: 1, status: 404 });
    expect(await lane().permissionOf(WORLD.repo, "nobody")).toMatchObject({ ok: false, error: { code: "not_found" } });
    fake.roles.set(`${WORLD.repo}\nnobody`, "write");
    expect(await lane().permissionOf(WORLD.repo, "nobody")).toEqual({ ok: true, value: "developer" });
    expect(asked()).toBe(4);
  });

  it("makes no call for a lane already called off", async () => {
    const callOff = new AbortController();
    callOff.abort();
    const opened = clients.open("forge_b", { forgeBaseUrl: fake.server.url, token: "t" }, callOff.signal);
    expect(opened.ok && (await opened.client.pullRequest(WORLD.repo, 7))).toMatchObject({ ok: false, error: { code: "forge_unavailable" } });
    expect(fake.server.requests).toHaveLength(0);
  });

  it("is off with a TTL of 0", async () => {
    const uncached = new ForgeClients({ network: loopbackNetwork(), clock, permissionTtlMs: 0 });
    await lane(uncached).permissionOf(WORLD.repo, "maria");
    await lane(uncached).permissionOf(WORLD.repo, "maria");
    expect(asked()).toBe(2);
  });
});
