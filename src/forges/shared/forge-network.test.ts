import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NetworkPolicy, parseCidrList } from "../../core/network-policy.js";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import type { FakeServer } from "../../test-support/fake-forges/fake-server.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { ForgeFailure } from "./forge-errors.js";
import type { ForgeProviderName } from "./forge-client.js";
import { ForgeClients } from "../forge-clients.js";
import { ADDRESS_REFUSED, ForgeNetwork } from "./forge-network.js";
import { openForgeHooks } from "../open-hooks.js";

const FORGES = [
  { provider: "forge_a", start: async () => (await FakeGitLab.start()).server },
  { provider: "forge_b", start: async () => (await FakeGitHub.start()).server },
  { provider: "forge_c", start: async () => (await FakeForgejo.start()).server },
] as const satisfies readonly { provider: ForgeProviderName; start: () => Promise<FakeServer> }[];

const refused = { ok: false, error: { code: "forge_address_refused", reason: ADDRESS_REFUSED } };

describe.each(FORGES)("$provider: the default policy refuses what is not a public address", ({ provider, start }) => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await start();
  });
  afterEach(() => server.close());
  const port = () => new URL(server.url).port;

  it.each([
    "localhost",
    "127.1",
    "0x7f000001",
    "2130706433",
    "0177.0.0.1",
    "[::ffff:127.0.0.1]",
    "[::1]",
    "169.254.169.254",
    "10.0.0.1",
    "192.168.1.1",
    "[fd00::1]",
  ])("%s, through the real client, before anything is sent", async (host) => {
    const opened = new ForgeClients().open(provider, { forgeBaseUrl: `http://${host}:${port()}`, token: "t" });
    if (!opened.ok) throw new Error(opened.message);
    expect(await opened.client.tokenOwner()).toEqual(refused);
    expect(server.requests).toHaveLength(0);
  });

  it("answers the same whether something listens or not", async () => {
    const clients = new ForgeClients();
    const at = (forgeBaseUrl: string) => {
      const opened = clients.open(provider, { forgeBaseUrl, token: "t" });
      if (!opened.ok) throw new Error(opened.message);
      return opened.client;
    };
    expect(await at(server.url).tokenOwner()).toEqual(refused);
    expect(await at("http://127.0.0.1:9").tokenOwner()).toEqual(refused);
    expect(await at(server.url).permissionOf(WORLD.repo, "maria")).toEqual(refused);
  });

  it("the hook calls and provisioning use the same rule", async () => {
    const hooks = openForgeHooks(new ForgeNetwork(), provider, { forgeBaseUrl: `http://localhost:${port()}`, token: "t" });
    const err = await hooks.listHooks(WORLD.repo).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ForgeFailure);
    expect((err as ForgeFailure).error).toEqual(refused.error);
    expect(server.requests).toHaveLength(0);
  });

  it("an operator's allow-list lets the private forge through", async () => {
    const network = new ForgeNetwork(new NetworkPolicy(parseCidrList("127.0.0.1/32").cidrs));
    const opened = new ForgeClients({ network }).open(provider, { forgeBaseUrl: server.url, token: "t" });
    if (!opened.ok) throw new Error(opened.message);
    expect((await opened.client.tokenOwner()).ok).toBe(true);
  });
});

describe("the address connected to is the one checked (after name resolution)", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = (await FakeGitLab.start()).server;
  });
  afterEach(() => server.close());

  it("a name is resolved by the network's own lookup, and refused when any address it gives is refused", async () => {
    const table: Record<string, string[]> = { "forge.test": ["127.0.0.1"], "rebound.test": ["127.0.0.1", "169.254.169.254"] };
    const resolve = (host: string, cb: (err: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void) =>
      cb(
        null,
        (table[host] ?? []).map((address) => ({ address, family: 4 })),
      );
    const network = new ForgeNetwork(new NetworkPolicy(parseCidrList("127.0.0.1/32").cidrs), resolve);
    const port = new URL(server.url).port;
    const at = (host: string) => {
      const opened = new ForgeClients({ network }).open("forge_a", { forgeBaseUrl: `http://${host}:${port}`, token: "t" });
      if (!opened.ok) throw new Error(opened.message);
      return opened.client;
    };
    expect((await at("forge.test").tokenOwner()).ok).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(await at("rebound.test").tokenOwner()).toEqual(refused);
    expect(server.requests).toHaveLength(1);
  });
});

describe("a refused address fails at once: no client retries it", () => {
  /** The real policy, counting the requests the clients hand it. */
  class CountingNetwork extends ForgeNetwork {
    sent = 0;
    override fetch(url: URL, init: RequestInit): Promise<Response> {
      this.sent++;
      return super.fetch(url, init);
    }
  }

  it.each(FORGES)("$provider: one request reaches the network, and the answer is the refusal", async ({ provider }) => {
    for (const forgeBaseUrl of ["http://127.0.0.1:8443", "http://refused.test:8443"]) {
      const network = new CountingNetwork(new NetworkPolicy(), (_host, cb) => cb(null, [{ address: "10.0.0.7", family: 4 }]));
      const opened = new ForgeClients({ network }).open(provider, { forgeBaseUrl, token: "t" });
      if (!opened.ok) throw new Error(opened.message);
      expect(await opened.client.tokenOwner()).toEqual(refused);
      expect(await opened.client.permissionOf(WORLD.repo, "maria")).toEqual(refused);
      expect(network.sent).toBe(2);
    }
  });
});
