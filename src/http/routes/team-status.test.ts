import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubPullBody } from "../../intake/fixtures/fixtures.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

const sign = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");
/** A team an org admin suspended launches nothing, by the API or by a delivery; reactivated, it launches again. */
describe.each(storeKinds())("team status at the launch gate on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const deliver = (hook: { id: string; token: string }, body: string) =>
    t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${sign(hook.token, body)}` },
    });

  it("answers 403 team_suspended to POST /api/runs and to a launching delivery (a launch_error row), and launches once active again", async () => {
    // No limit anywhere: the delivery would otherwise launch in one call, without the gate.
    const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    const hook = { id: made.config.id as string, token: made.token as string };
    expect((await seed.orgAdmin.api.patch(`/api/teams/${seed.team.id}`, { status: "suspended" })).body.status).toBe("suspended");

    const run = await seed.member.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr", vars: {} });
    expect([run.status, run.body]).toEqual([403, { error: "team_suspended", detail: "the team is suspended; only an active team can launch runs" }]);
    const body = githubPullBody("5".repeat(40));
    const denied = await deliver(hook, body);
    expect([denied.statusCode, JSON.parse(denied.body).error]).toEqual([403, "team_suspended"]);
    const rows = (await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${hook.id}/deliveries`)).body.deliveries;
    expect(rows[0]).toMatchObject({ status: "launch_error", denial_reason: "team_suspended", run_id: null });
    expect((await seed.member.api.get(`/api/teams/${seed.team.id}/runs`)).body.runs).toEqual([]);

    await seed.orgAdmin.api.patch(`/api/teams/${seed.team.id}`, { status: "active" });
    expect((await seed.member.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr", vars: {} })).status).toBe(201);
    const retried = JSON.parse((await deliver(hook, body)).body);
    expect([retried.status, retried.delivery_id]).toEqual(["launched", rows[0].id]);
  });
});
