import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { standardSecret } from "../../forges/shared/verify-standard-webhook.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const examples = loadGithubExamples();
const hmac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");
/** A head sha of its own for the nth delivery, so that every accepted one launches. */
const sha = (n: number) => n.toString(16).padStart(40, "0");
const WINDOW_MS = 600_000;

function gitlabOpened(n: number) {
  const p = fixture("gitlab-merge-request-open") as any;
  p.object_attributes.last_commit.id = sha(n);
  return JSON.stringify(p);
}
function githubOpened(n: number) {
  const p = githubExample(examples, "pull_request", "opened") as any;
  p.pull_request.head.sha = sha(n);
  p.pull_request.draft = false;
  return JSON.stringify(p);
}
function forgejoOpened(n: number) {
  const p = fixture("forgejo-pull-request-opened") as any;
  p.pull_request.head.sha = sha(n);
  return JSON.stringify(p);
}
const genericBody = (n: number) => JSON.stringify({ bot: "review-pr", vars: {}, idempotency_key: `k-${n}` });

interface Signed {
  body: string;
  headers: Record<string, string>;
}

/** Each proof the rotation overlap covers: how its forge sends the nth delivery with `token`, and the 401 a wrong one gets. */
const PROOFS: { name: string; fields: Record<string, unknown>; refusal: string; send: (token: string, n: number, now: number) => Signed }[] = [
  {
    name: "forge_a's X-Gitlab-Token",
    fields: { provider: "forge_a" },
    refusal: "invalid_webhook_token",
    send: (token, n) => ({ body: gitlabOpened(n), headers: { "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": token } }),
  },
  {
    name: "generic's X-Service-Webhook-Token",
    fields: { provider: "generic" },
    refusal: "invalid_webhook_token",
    send: (token, n) => ({ body: genericBody(n), headers: { "x-service-webhook-token": token } }),
  },
  {
    name: "forge_b's X-Hub-Signature-256",
    fields: { provider: "forge_b" },
    refusal: "invalid_signature",
    send: (token, n) => {
      const body = githubOpened(n);
      return { body, headers: { "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${hmac(token, body)}` } };
    },
  },
  {
    name: "forge_c's X-Forgejo-Signature",
    fields: { provider: "forge_c" },
    refusal: "invalid_signature",
    send: (token, n) => {
      const body = forgejoOpened(n);
      return { body, headers: { "x-forgejo-event": "pull_request", "x-forgejo-signature": hmac(token, body) } };
    },
  },
  {
    name: "generic's Standard Webhooks signature",
    fields: { provider: "generic", sign_mode: "standard" },
    refusal: "invalid_signature",
    send: (token, n, now) => {
      const body = genericBody(n);
      const id = `msg_${n}`;
      return {
        body,
        headers: {
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(now / 1000)),
          "webhook-signature": new Webhook(standardSecret(token)).sign(id, new Date(now), body),
        },
      };
    },
  },
];

const transports = ["inject", "http"] as const;
const cases = storeKinds().flatMap((kind) => transports.map((transport) => [kind, transport] as const));

describe.each(cases)("rotating a webhook's token with an overlap on %s over %s", (kind, transport) => {
  let t: TestApp;
  let seed: Seed;
  let base = "";
  let sent = 0;
  const hooksPath = () => `/api/teams/${seed.team.id}/webhooks`;

  beforeAll(async () => {
    // Targets stay cached for an hour: a window must close at the delivery's time, not the load's.
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0", SERVICE_CONFIG_CACHE_TTL: "1h" });
    seed = await seedTenancy(t);
    if (transport === "http") base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => t.close());

  const create = async (fields: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(hooksPath(), { ...fields, bot_ids: ["review-pr"], burst: 1000 });
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, provider: r.body.config.provider as string, token: r.body.token as string };
  };
  /** POST …/rotate with `body` as JSON, or with no body at all. */
  const rotate = async (id: string, body?: unknown) => {
    const r = await t.app.inject({
      method: "POST",
      url: `${hooksPath()}/${id}/rotate`,
      headers: { authorization: `Bearer ${seed.teamAdmin.token}` },
      ...(body !== undefined && { payload: body as object }),
    });
    return { status: r.statusCode, body: JSON.parse(r.body) };
  };
  const deliver = async (proof: (typeof PROOFS)[number], hook: { id: string; provider: string }, token: string) => {
    const { body, headers } = proof.send(token, ++sent, t.clock.now());
    const url = `/api/webhooks/${hook.provider}/${hook.id}`;
    const all = { "content-type": "application/json", ...headers };
    if (transport === "inject") {
      const r = await t.app.inject({ method: "POST", url, payload: body, headers: all });
      return { status: r.statusCode, body: JSON.parse(r.body) };
    }
    const r = await fetch(base + url, { method: "POST", body, headers: all });
    return { status: r.status, body: await r.json() };
  };
  const expectAccepted = async (proof: (typeof PROOFS)[number], hook: { id: string; provider: string }, token: string, why: string) => {
    const r = await deliver(proof, hook, token);
    expect([r.status, r.body.status], why).toEqual([200, "launched"]);
  };
  const expectRefused = async (proof: (typeof PROOFS)[number], hook: { id: string; provider: string }, token: string, why: string) => {
    const r = await deliver(proof, hook, token);
    expect([r.status, r.body.error], why).toEqual([401, proof.refusal]);
  };
  const acceptedByPrevious = async (provider: string) => {
    const m = new RegExp(`service_webhook_previous_secret_accepted_total\\{provider="${provider}"\\} (\\d+)`).exec(await t.services.metrics.text());
    return m ? Number(m[1]) : 0;
  };
  const validUntil = async (id: string) => (await seed.member.api.get(`${hooksPath()}/${id}`)).body.previous_token_valid_until;

  it.each(PROOFS)("accepts the old token by $name until the window ends, then refuses it; the new one throughout", async (proof) => {
    const hook = await create(proof.fields);
    const old = hook.token;
    await expectAccepted(proof, hook, old, "before the rotation");
    const rotated = await rotate(hook.id, { overlap_seconds: WINDOW_MS / 1000 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.token as string;
    const until = new Date(t.clock.now() + WINDOW_MS).toISOString();
    expect(rotated.body.config.previous_token_valid_until).toBe(until);
    expect(await validUntil(hook.id)).toBe(until);

    const counted = await acceptedByPrevious(hook.provider);
    await expectAccepted(proof, hook, fresh, "the new token, inside the window");
    await expectAccepted(proof, hook, old, "the old token, inside the window");
    expect(await acceptedByPrevious(hook.provider)).toBe(counted + 1);
    t.clock.advance(WINDOW_MS - 1);
    await expectAccepted(proof, hook, old, "the old token, at the window's last millisecond");
    expect(await acceptedByPrevious(hook.provider)).toBe(counted + 2);

    t.clock.advance(1);
    await expectRefused(proof, hook, old, "the old token, once the window is over");
    await expectAccepted(proof, hook, fresh, "the new token, after the window");
    expect(await acceptedByPrevious(hook.provider)).toBe(counted + 2);
    expect(await validUntil(hook.id)).toBeNull();
    // The target refusing it was loaded inside the window and still holds the old secret.
    const target = (await t.services.targets.get(hook.id))!;
    expect(target.secrets.previous).not.toBeNull();
    if (proof.refusal === "invalid_signature") expect(target.previousHmacSecret).toBe(old);
  });

  it("sweeps a previous secret out of the row once its window has ended, and not before", async () => {
    const proof = PROOFS.find((p) => p.name.startsWith("forge_b"))!;
    const hook = await create(proof.fields);
    const rotated = await rotate(hook.id, { overlap_seconds: WINDOW_MS / 1000 });
    const fresh = rotated.body.token as string;
    const previous = () =>
      t.store.db
        .selectFrom("webhooks")
        .select(["previous_token_hash", "previous_sealed_key_id", "previous_sealed_blob", "previous_valid_until"])
        .where("id", "=", hook.id)
        .executeTakeFirstOrThrow();
    const until = t.clock.now() + WINDOW_MS;
    t.clock.advance(WINDOW_MS - 1);
    await t.services.previousSecrets.tick(t.clock.now());
    expect(await previous()).toMatchObject({ previous_valid_until: until, previous_token_hash: expect.any(String), previous_sealed_blob: expect.any(String) });
    await expectAccepted(proof, hook, hook.token, "the old token, at the window's last millisecond after a sweep");

    t.clock.advance(1);
    expect(await t.services.previousSecrets.tick(t.clock.now())).toBeGreaterThanOrEqual(1);
    expect(await previous()).toEqual({ previous_token_hash: null, previous_sealed_key_id: null, previous_sealed_blob: null, previous_valid_until: null });
    await expectRefused(proof, hook, hook.token, "the old token, swept");
    await expectAccepted(proof, hook, fresh, "the new token, after the sweep");
  });

  it.each(PROOFS)("refuses the old token by $name at once after a rotation without an overlap", async (proof) => {
    const hook = await create(proof.fields);
    let current = hook.token;
    for (const body of [undefined, {}, { overlap_seconds: 0 }]) {
      const rotated = await rotate(hook.id, body);
      expect(rotated.status, JSON.stringify(body)).toBe(200);
      expect(rotated.body.config.previous_token_valid_until).toBeNull();
      await expectRefused(proof, hook, current, `the replaced token after a rotation with ${JSON.stringify(body)}`);
      current = rotated.body.token;
      await expectAccepted(proof, hook, current, `the new token after a rotation with ${JSON.stringify(body)}`);
    }
  });

  it.each(PROOFS)("keeps one previous token by $name: a second rotation inside the window drops the first", async (proof) => {
    const hook = await create(proof.fields);
    const first = (await rotate(hook.id, { overlap_seconds: 600 })).body.token as string;
    t.clock.advance(60_000);
    const second = await rotate(hook.id, { overlap_seconds: 300 });
    expect(second.body.config.previous_token_valid_until).toBe(new Date(t.clock.now() + 300_000).toISOString());
    await expectRefused(proof, hook, hook.token, "the token two rotations back");
    await expectAccepted(proof, hook, first, "the token one rotation back");
    await expectAccepted(proof, hook, second.body.token, "the newest token");
    // A rotation without an overlap inside a window ends it.
    const third = await rotate(hook.id, {});
    await expectRefused(proof, hook, second.body.token, "the token an overlap-less rotation replaced");
    await expectRefused(proof, hook, first, "the previous token of the window that rotation ended");
    await expectAccepted(proof, hook, third.body.token, "the token of the overlap-less rotation");
  });

  it("refuses an overlap_seconds that is not a whole number from 0 to 86400 with 400, and rotates nothing", async () => {
    const proof = PROOFS[2]!;
    const hook = await create(proof.fields);
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 86_401 }, { overlap_seconds: 1.5 }, { overlap_seconds: "60" }, { overlap_seconds: null }]) {
      const r = await rotate(hook.id, body);
      expect([r.status, r.body.error, r.body.field], JSON.stringify(body)).toEqual([400, "invalid_request", "overlap_seconds"]);
    }
    const unknown = await rotate(hook.id, { overlap: 60 });
    expect([unknown.status, unknown.body.error]).toEqual([400, "invalid_request"]);
    await expectAccepted(proof, hook, hook.token, "the token no refused rotation replaced");
    const longest = await rotate(hook.id, { overlap_seconds: 86_400 });
    expect(longest.body.config.previous_token_valid_until).toBe(new Date(t.clock.now() + 86_400_000).toISOString());
    // Read-only on PATCH, like every field the service owns.
    const patched = await seed.teamAdmin.api.patch(`${hooksPath()}/${hook.id}`, { previous_token_valid_until: null });
    expect([patched.status, patched.body.field]).toEqual([400, "previous_token_valid_until"]);
  });

  it("answers 409 for a provisioned config, whatever the overlap", async () => {
    const admin = { userId: seed.teamAdmin.id, login: "team-admin", superAdmin: false, tokenId: "pat_x" };
    const { config } = await t.services.webhooks.create(admin, seed.team.id, { provider: "forge_b" }, { provisionedBy: "forge:conn_1" });
    expect((await rotate(config.id, { overlap_seconds: 600 })).status).toBe(409);
    expect(await validUntil(config.id)).toBeNull();
  });

  it("records the overlap in the rotation's audit detail", async () => {
    const hook = await create({ provider: "forge_a" });
    await rotate(hook.id, { overlap_seconds: 90 });
    const until = new Date(t.clock.now() + 90_000).toISOString();
    t.clock.advance(1);
    await rotate(hook.id);
    const rows = await t.store.db
      .selectFrom("audit_log")
      .select("detail")
      .where("action", "=", "webhook.rotate")
      .where("target_id", "=", hook.id)
      .orderBy("at")
      .execute();
    expect(rows.map((r) => JSON.parse(r.detail))).toEqual([
      { provider: "forge_a", overlap_seconds: 90, previous_token_valid_until: until },
      { provider: "forge_a", overlap_seconds: 0, previous_token_valid_until: null },
    ]);
  });
});
