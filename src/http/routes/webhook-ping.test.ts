import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, seedTenancy, startListeningTestApp, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const LOOPBACK_HINT = /^This service answered, but SERVICE_BASE_URL \(127\.0\.0\.1\) is a loopback address/;

describe.each(storeKinds())("a webhook's test delivery over the network on %s", (kind) => {
  let t: TestApp & { url: string };
  let seed: Seed;
  let base = "";
  const createHook = async (body: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(`${base}`, { bot_ids: ["review-pr"], ...body });
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };

  beforeAll(async () => {
    t = await startListeningTestApp(kind);
    seed = await seedTenancy(t);
    base = `/api/teams/${seed.team.id}/webhooks`;
  });
  afterAll(() => t.close());

  it.each([
    ["forge_b", "hmac", "ping", "ping: nothing to launch"],
    ["forge_c", "hmac", "push", "push events do not launch"],
    ["generic", "hmac", "ping", "ping: nothing to launch"],
    ["generic", "standard", "ping", "ping: nothing to launch"],
  ] as const)(
    "sends %s's (%s) signed test event to its delivery URL, where it lands: recorded, listed, launching nothing",
    async (provider, sign_mode, event, reason) => {
      const hook = await createHook({ provider, sign_mode });
      const r = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
      expect(r.status).toBe(200);
      const url = `${t.url}/api/webhooks/${provider}/${hook.id}`;
      expect((await seed.member.api.get(`${base}/${hook.id}`)).body.delivery_url).toBe(url);
      expect(r.body).toMatchObject({
        event,
        url,
        reached: true,
        answer: { status: 200, body: { status: "filtered", reason }, text: null },
        unreachable: null,
        hint: expect.stringMatching(LOOPBACK_HINT),
      });
      const listed = (await seed.member.api.get(`${base}/${hook.id}/deliveries`)).body.deliveries;
      expect(listed.map((d: { id: string }) => d.id)).toEqual([r.body.delivery_id]);
      const shown = (await seed.member.api.get(`${base}/${hook.id}/deliveries/${r.body.delivery_id}`)).body;
      expect(shown.delivery).toMatchObject({ status: "filtered", reason });
      expect(shown.trace.decided_by).toBe("filters");
      expect(await t.store.db.selectFrom("runs").select("id").where("webhook_id", "=", hook.id).execute()).toEqual([]);
    },
  );

  it("needs a token-mode webhook's token, and reports a wrong one as not reached", async () => {
    const hook = await createHook({ provider: "forge_a" });
    const missing = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_request", field: "token" });
    const ok = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, { token: hook.token });
    expect(ok.body).toMatchObject({
      event: "Push Hook",
      reached: true,
      answer: { status: 200, body: { status: "filtered", reason: "push events do not launch" } },
    });
    const wrong = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, { token: "wh_wrong" });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toMatchObject({
      reached: false,
      delivery_id: null,
      answer: { status: 401, body: { error: "invalid_webhook_token" } },
      hint: expect.stringMatching(LOOPBACK_HINT),
    });
  });

  it("is for team admins, and a disabled webhook's ping is not reached", async () => {
    const hook = await createHook({ provider: "forge_b" });
    expect((await seed.member.api.post(`${base}/${hook.id}/ping`, {})).status).toBe(403);
    expect((await seed.outsider.api.post(`${base}/${hook.id}/ping`, {})).status).toBe(404);
    await seed.teamAdmin.api.patch(`${base}/${hook.id}`, { enabled: false });
    const off = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
    expect(off.body).toMatchObject({ reached: false, answer: { status: 410 } });
  });
});

describe("a test delivery whose SERVICE_BASE_URL is wrong", () => {
  const seeds = new Map<TestApp, Seed>();
  const ping = async (t: TestApp, provider = "forge_b") => {
    const seed = seeds.get(t) ?? (await seedTenancy(t));
    seeds.set(t, seed);
    const base = `/api/teams/${seed.team.id}/webhooks`;
    const hook = (await seed.teamAdmin.api.post(base, { bot_ids: ["review-pr"], provider })).body.config.id as string;
    const r = await seed.teamAdmin.api.post(`${base}/${hook}/ping`, {});
    expect(r.status).toBe(200);
    return { ...r.body, recorded: (await seed.member.api.get(`${base}/${hook}/deliveries`)).body.deliveries };
  };

  it("reports a closed port as refused, with the hint, and records nothing", async () => {
    const port = await freePort();
    const t = await startTestApp("sqlite", { SERVICE_BASE_URL: `http://127.0.0.1:${port}` });
    try {
      const r = await ping(t);
      expect(r).toMatchObject({
        url: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/webhooks/forge_b/`)),
        reached: false,
        delivery_id: null,
        answer: null,
        unreachable: { cause: "refused", message: expect.stringContaining("ECONNREFUSED") },
        hint: `Nothing accepts connections at http://127.0.0.1:${port}. SERVICE_BASE_URL must be the address forges call this service at: its public URL, through any proxy or load balancer.`,
      });
      expect(r.recorded).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("reports what answered when it is not this service: a proxy's page, a redirect, another instance", async () => {
    let answer: (res: import("node:http").ServerResponse) => void = () => {};
    const other: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => answer(res));
    });
    await new Promise<void>((ok) => other.listen(0, "127.0.0.1", ok));
    const at = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const t = await startTestApp("sqlite", { SERVICE_BASE_URL: at });
    try {
      answer = (res) => res.writeHead(502, { "content-type": "text/html" }).end("<html><h1>502 Bad Gateway</h1></html>");
      expect(await ping(t)).toMatchObject({
        reached: false,
        answer: { status: 502, body: {}, text: "<html><h1>502 Bad Gateway</h1></html>" },
        unreachable: null,
        hint: expect.stringContaining(`${at} answered 502, but not as this service`),
        recorded: [],
      });
      answer = (res) => res.writeHead(308, { location: "https://hooks.example.com/" }).end();
      expect((await ping(t)).hint).toMatch(/redirects to https:\/\/hooks\.example\.com\/; forges do not follow redirects/);
      // Another instance takes the delivery and names a delivery this one never recorded.
      answer = (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "filtered", delivery_id: "dlv_elsewhere" }));
      expect(await ping(t)).toMatchObject({
        reached: false,
        delivery_id: null,
        hint: expect.stringMatching(/did not record delivery dlv_elsewhere: SERVICE_BASE_URL reaches another instance/),
      });
      // An https base URL that reaches a plain-HTTP listener fails the TLS handshake.
      const tls = await startTestApp("sqlite", { SERVICE_BASE_URL: at.replace("http:", "https:") });
      try {
        expect(await ping(tls)).toMatchObject({
          reached: false,
          answer: null,
          unreachable: { cause: "tls" },
          hint: expect.stringMatching(/^The TLS handshake with https:/),
        });
      } finally {
        await tls.close();
      }
    } finally {
      await t.close();
      await new Promise((ok) => other.close(ok));
    }
  });
});
