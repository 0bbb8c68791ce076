import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubPullBody } from "../../intake/fixtures/fixtures.js";
import { insertDelivery } from "../../store/deliveries.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";
import { testDeliveryRow } from "../../test-support/rows.js";

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe.each(storeKinds())("a webhook's delivery log on %s", (kind) => {
  let t: TestApp;
  let seed: Seed;
  let base = "";

  const createHook = async (body: Record<string, unknown> = {}) => {
    const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"], ...body });
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };
  const github = (hook: { id: string; token: string }, body: string, signature = sign(hook.token, body)) =>
    t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": signature, "x-github-delivery": "gd-1" },
    });

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    seed = await seedTenancy(t);
    base = `/api/teams/${seed.team.id}/webhooks`;
  });
  afterAll(() => t.close());

  it("pages with before and after cursors, rows of one millisecond neither skipped nor repeated", async () => {
    const hook = await createHook();
    // Seven rows, three sharing a millisecond.
    const at = [1000, 2000, 3000, 3000, 3000, 4000, 5000];
    for (const [i, ms] of at.entries()) {
      await insertDelivery(t.store.db, testDeliveryRow(`dlv_p${i}`, { tenant_id: seed.team.id, webhook_id: hook.id, created_at: ms, updated_at: ms }));
    }
    const get = async (q: string) => {
      const r = await seed.member.api.get(`${base}/${hook.id}/deliveries?${q}`);
      expect(r.status, q).toBe(200);
      return r.body;
    };
    const first = await get("limit=3");
    expect(first.deliveries.map((d: any) => d.id)).toEqual(["dlv_p6", "dlv_p5", "dlv_p4"]);
    expect(first).toMatchObject({ has_more: true, before: "dlv_p4", after: "dlv_p6" });
    const second = await get(`limit=3&before=${first.before}`);
    expect(second.deliveries.map((d: any) => d.id)).toEqual(["dlv_p3", "dlv_p2", "dlv_p1"]);
    const last = await get(`limit=3&before=${second.before}`);
    expect(last.deliveries.map((d: any) => d.id)).toEqual(["dlv_p0"]);
    expect(last.has_more).toBe(false);
    // After: the newer rows nearest the cursor first, shown newest first.
    const newer = await get("limit=2&after=dlv_p2");
    expect(newer.deliveries.map((d: any) => d.id)).toEqual(["dlv_p4", "dlv_p3"]);
    expect(newer).toMatchObject({ has_more: true, after: "dlv_p4" });
    const rest = await get(`limit=5&after=${newer.after}`);
    expect(rest.deliveries.map((d: any) => d.id)).toEqual(["dlv_p6", "dlv_p5"]);
    expect(rest.has_more).toBe(false);
    // Nothing new: the cursor stays.
    expect(await get("limit=5&after=dlv_p6")).toMatchObject({ deliveries: [], has_more: false, after: "dlv_p6" });
  });

  it("filters by status, event and time in the store, and refuses a bad query with a field", async () => {
    const hook = await createHook();
    await insertDelivery(t.store.db, testDeliveryRow("dlv_f0", { tenant_id: seed.team.id, webhook_id: hook.id, created_at: 10, updated_at: 10 }));
    await insertDelivery(
      t.store.db,
      testDeliveryRow("dlv_f1", {
        tenant_id: seed.team.id,
        webhook_id: hook.id,
        status: "invalid",
        event_kind: "pull_request",
        created_at: 20,
        updated_at: 20,
      }),
    );
    const ids = async (q: string) => (await seed.member.api.get(`${base}/${hook.id}/deliveries?${q}`)).body.deliveries.map((d: any) => d.id);
    expect(await ids("status=invalid")).toEqual(["dlv_f1"]);
    expect(await ids("event=pull_request")).toEqual(["dlv_f1"]);
    expect(await ids("since=15")).toEqual(["dlv_f1"]);
    expect(await ids(`since=${new Date(5).toISOString()}`)).toEqual(["dlv_f1", "dlv_f0"]);
    for (const [q, field] of [
      ["status=nope", "status"],
      ["after=dlv_none", "after"],
      ["after=dlv_f0&before=dlv_f1", "after"],
      ["since=yesterday", "since"],
    ]) {
      const r = await seed.member.api.get(`${base}/${hook.id}/deliveries?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body).toMatchObject({ error: "invalid_request", field });
    }
    // A cursor of another webhook is not one of this log's.
    const other = await createHook();
    expect((await seed.member.api.get(`${base}/${other.id}/deliveries?before=dlv_f0`)).status).toBe(400);
  });

  it("opens one delivery with its trace and its run; another team's caller gets 404", async () => {
    const hook = await createHook();
    const firstAnswer = await github(hook, githubPullBody("a".repeat(40)));
    expect(firstAnswer.statusCode, firstAnswer.body + t.logs.join("\n")).toBe(200);
    expect((await github(hook, githubPullBody("b".repeat(40), { draft: true }))).statusCode).toBe(200);
    expect((await github(hook, githubPullBody("c".repeat(40)), "sha256=00")).statusCode).toBe(401);
    const log = (await seed.member.api.get(`${base}/${hook.id}/deliveries`)).body.deliveries;
    const [bad, draft, launched] = log;
    expect([bad.status, draft.status, launched.status]).toEqual(["invalid", "filtered", "launched"]);

    const shown = await seed.member.api.get(`${base}/${hook.id}/deliveries/${launched.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.delivery).toEqual(launched);
    expect(shown.body.run).toMatchObject({ id: launched.run_id, status: "queued", bot_id: "review-pr" });
    expect(shown.body.trace.decided_by).toBe("gate");
    expect(shown.body.trace.steps.map((s: any) => s.result)).toEqual(["passed", "passed", "passed", "passed", "passed", "passed", "decided"]);

    const filtered = (await seed.member.api.get(`${base}/${hook.id}/deliveries/${draft.id}`)).body;
    expect(filtered.trace.decided_by).toBe("filters");
    expect(filtered.trace.steps.find((s: any) => s.step === "filters")).toMatchObject({ result: "decided", detail: draft.reason });
    expect(filtered.trace.steps.find((s: any) => s.step === "gate").result).toBe("not_reached");
    expect(filtered.run).toBeNull();

    const refused = (await seed.member.api.get(`${base}/${hook.id}/deliveries/${bad.id}`)).body;
    expect(refused.trace.decided_by).toBe("verification");
    expect(refused.trace.steps[0]).toMatchObject({ step: "admission", result: "passed" });

    expect((await seed.member.api.get(`${base}/${hook.id}/deliveries/dlv_none`)).status).toBe(404);
    const other = await createHook();
    expect((await seed.member.api.get(`${base}/${other.id}/deliveries/${launched.id}`)).status).toBe(404);
    expect((await seed.outsider.api.get(`${base}/${hook.id}/deliveries/${launched.id}`)).status).toBe(404);
    expect((await seed.outsider.api.get(`${base}/${hook.id}/deliveries`)).status).toBe(404);
  });
});
