import { afterEach, describe, expect, it } from "vitest";
import { FakeForgejo } from "../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../test-support/fake-forges/fake-github.js";
import { FakeGitLab } from "../test-support/fake-forges/fake-gitlab.js";
import { FakeHooks } from "../test-support/fake-forges/fake-hooks.js";
import type { FakeServer } from "../test-support/fake-forges/fake-server.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import { ForgeFailure } from "./shared/forge-errors.js";
import { openForgeHooks } from "./open-hooks.js";
import { loopbackNetwork } from "../test-support/loopback-network.js";

const FORGES = [
  { provider: "forge_b", flavour: "github", start: async () => (await FakeGitHub.start()).server },
  { provider: "forge_a", flavour: "gitlab", start: async () => (await FakeGitLab.start()).server },
  { provider: "forge_c", flavour: "forgejo", start: async () => (await FakeForgejo.start()).server },
] as const;

let server: FakeServer | undefined;
afterEach(() => server?.close());

/** The forge's fake, and our hook calls on it. */
async function open({ provider, flavour, start }: (typeof FORGES)[number]) {
  server = await start();
  const fake = FakeHooks.mount(server, flavour);
  return { fake, hooks: openForgeHooks(loopbackNetwork(), provider, { forgeBaseUrl: server.url, token: "tok" }) };
}

describe.each(FORGES)("$flavour hooks read back", (forge) => {
  it("reads one hook as the forge holds it: address, the events the lanes need, and whether the forge calls it", async () => {
    const { fake, hooks } = await open(forge);
    const made = await hooks.createHook(WORLD.repo, { url: "https://gw.example/api/webhooks/x/wh_1", secret: "s" });
    const read = await hooks.getHook(WORLD.repo, made.id);
    expect(read).toMatchObject({ id: made.id, url: "https://gw.example/api/webhooks/x/wh_1", active: true });
    expect(read!.events).toEqual(expect.arrayContaining([...hooks.neededEvents]));

    fake.disable(fake.of()[0]!);
    expect((await hooks.getHook(WORLD.repo, made.id))!.active).toBe(false);
    await hooks.deleteHook(WORLD.repo, made.id);
    expect(await hooks.getHook(WORLD.repo, made.id)).toBeUndefined();
  });
});

describe("forge-specific hook reads", () => {
  it("lists GitHub's latest deliveries, newest first", async () => {
    const { fake, hooks } = await open(FORGES[0]);
    const made = await hooks.createHook(WORLD.repo, { url: "https://gw.example/h", secret: "s" });
    fake.delivered(fake.of()[0]!, [200, 502, 0]);
    const latest = await hooks.recentDeliveries!(WORLD.repo, made.id, 2);
    expect(latest.map((d) => [d.statusCode, d.status])).toEqual([
      [0, "failed to connect"],
      [502, "Invalid HTTP Response: 502"],
    ]);
    expect(latest[0]).toMatchObject({ redelivery: false, event: "pull_request", action: "opened", deliveredAt: expect.stringMatching(/Z$/) });
    expect(server!.requests.at(-1)!.path).toMatch(/\/hooks\/\d+\/deliveries\?per_page=2$/);
  });

  it("reads GitHub's `*` as a hook subscribed to every event", async () => {
    const { fake, hooks } = await open(FORGES[0]);
    const made = await hooks.createHook(WORLD.repo, { url: "https://gw.example/h", secret: "s" });
    expect(await hooks.getHook(WORLD.repo, made.id)).not.toHaveProperty("everyEvent");
    fake.of()[0]!.events = ["*"];
    expect(await hooks.getHook(WORLD.repo, made.id)).toMatchObject({ events: ["*"], everyEvent: true });
  });

  it("enables a hook GitLab disabled through a test push it delivers with the hook's token, answered 2xx", async () => {
    const { fake, hooks } = await open(FORGES[1]);
    const made = await hooks.createHook(WORLD.repo, { url: "https://gw.example/h", secret: "glt-secret" });
    const stored = fake.of()[0]!;
    fake.disable(stored, "2026-11-21T13:00:00Z");
    expect(await hooks.getHook(WORLD.repo, made.id)).toMatchObject({
      active: false,
      alertStatus: "temporarily_disabled",
      disabledUntil: "2026-11-21T13:00:00Z",
      inactiveWhy: "GitLab holds the hook back after failing deliveries until 2026-11-21T13:00:00Z",
    });
    // An edit leaves GitLab's failure state alone.
    await hooks.updateHook(WORLD.repo, made.id, { url: "https://gw.example/h", secret: "glt-secret" });
    expect((await hooks.getHook(WORLD.repo, made.id))!.active).toBe(false);

    const received: Record<string, string>[] = [];
    fake.receiver = async (_url, headers) => {
      received.push(headers);
      return { status: received.length === 1 ? 401 : 200, body: "" };
    };
    const refused = await hooks.enableHook!(WORLD.repo, made.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForgeFailure);
    expect((await hooks.getHook(WORLD.repo, made.id))!.active).toBe(false);
    await hooks.enableHook!(WORLD.repo, made.id);
    const enabled = await hooks.getHook(WORLD.repo, made.id);
    expect(enabled).toMatchObject({ active: true, alertStatus: "executable", disabledUntil: null });
    expect(enabled).not.toHaveProperty("inactiveWhy");
    expect(received.map((h) => [h["x-gitlab-event"], h["x-gitlab-token"]])).toEqual([
      ["Push Hook", "glt-secret"],
      ["Push Hook", "glt-secret"],
    ]);
  });
});
