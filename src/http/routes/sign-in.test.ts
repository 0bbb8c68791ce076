import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_POLICY } from "../../tenancy/sign-in-policy.js";
import { AddressThrottle } from "../../tenancy/address-throttle.js";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

const PW = "correct horse battery";
const NEW_PW = "another long passphrase";

/** The value of one counter sample in the metrics text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(storeKinds())("sign-in on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let addr = 0;
  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  // Each test signs in from addresses of its own, so the per-address throttle is met only where meant.
  const login = async (loginName: string, password: string, address = `10.0.0.${++addr}`) => {
    const res = await t.app.inject({ method: "POST", url: "/api/auth/login", payload: { login: loginName, password }, remoteAddress: address });
    return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
  };
  const logins = async (result: string) => sample((await client(t.app).get("/metrics")).body, `service_auth_logins_total{result="${result}"}`);
  const newUser = async (name: string) => {
    const u = (await seed.admin.post("/api/admin/users", { login: name })).body;
    await seed.admin.put(`/api/orgs/${seed.org.id}/members/${u.id}`, { role: "member" });
    // A password chosen by the user, through a reset a super-admin issued.
    const reset = (await seed.admin.post(`/api/admin/users/${u.id}/password-reset`)).body;
    expect((await client(t.app).post("/api/auth/password-reset/confirm", { token: reset.token, password: PW })).status).toBe(200);
    return u.id as string;
  };

  it("signs in with an admin-set password to a session that may only change it, then fully", async () => {
    const before = { change: await logins("password_change_required"), success: await logins("success") };
    const set = await seed.admin.put(`/api/admin/users/${seed.member.id}/password`, { password: PW });
    expect(set.body).toMatchObject({ password_change_required: true });
    const first = await login("Member", PW);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ password_change_required: true, token: expect.stringMatching(/^ses_/) });
    const restricted = client(t.app, first.body.token);
    expect((await restricted.get("/api/users/me")).body.login).toBe("member");
    const refused = await restricted.get("/api/users/me/tokens");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("password_change_required");
    expect((await restricted.put("/api/users/me/password", { password: NEW_PW, current_password: "wrong password!" })).status).toBe(403);
    expect((await restricted.put("/api/users/me/password", { password: "short", current_password: PW })).status).toBe(400);
    const changed = await restricted.put("/api/users/me/password", { password: NEW_PW, current_password: PW });
    expect(changed.body).toMatchObject({ password_change_required: false });
    expect((await restricted.get("/api/users/me/tokens")).status).toBe(200);

    const second = await login("member", NEW_PW);
    expect(second.body.password_change_required).toBe(false);
    expect((await client(t.app, second.body.token).get(`/api/teams/${seed.team.id}`)).status).toBe(200);
    expect(await logins("password_change_required")).toBe(before.change + 1);
    expect(await logins("success")).toBe(before.success + 1);
  });

  it("answers an unknown login exactly as a wrong password, and counts both invalid", async () => {
    await newUser("carol");
    const before = await logins("invalid");
    const wrong = await login("carol", "not the password");
    const unknown = await login("nobody-here", "not the password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(wrong.status);
    // The same body but for the request's own id.
    expect({ ...unknown.body, request_id: "" }).toEqual({ ...wrong.body, request_id: "" });
    expect(unknown.body).toEqual({ error: "unauthenticated", detail: "login or password is wrong", request_id: expect.any(String) });
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(wrong.headers).sort());
    expect(await logins("invalid")).toBe(before + 2);
  });

  it("locks an account after five wrong passwords, refuses even the right one, and opens after the lock", async () => {
    await newUser("dave");
    const before = await logins("locked");
    for (let i = 0; i < 5; i++) expect((await login("dave", `wrong password ${i}`)).status).toBe(401);
    const locked = await login("dave", PW);
    expect(locked.status).toBe(429);
    expect(locked.body.error).toBe("rate_limited");
    expect(locked.headers["retry-after"]).toBe("900");
    expect(await logins("locked")).toBe(before + 1);
    t.clock.advance(14 * 60_000);
    expect((await login("dave", PW)).status).toBe(429);
    t.clock.advance(60_000);
    expect((await login("dave", PW)).status).toBe(200);
    // The count started afresh: four more wrong ones do not lock.
    for (let i = 0; i < 4; i++) await login("dave", `wrong again ${i}`);
    expect((await login("dave", PW)).status).toBe(200);
  });

  it("throttles an address that fails too often, whatever the logins, until its window passes", async () => {
    await newUser("erin");
    for (let i = 0; i < 20; i++) expect((await login(`ghost-${i}`, "whatever it is", "10.9.9.9")).status).toBe(401);
    const throttled = await login("erin", PW, "10.9.9.9");
    expect(throttled.status).toBe(429);
    expect((await login("erin", PW, "10.9.9.10")).status).toBe(200);
    t.clock.advance(15 * 60_000);
    expect((await login("erin", PW, "10.9.9.9")).status).toBe(200);
  });

  it("counts every one of parallel wrong passwords, per account and per address", async () => {
    await newUser("hank");
    const wrong = await Promise.all(Array.from({ length: 8 }, (_, i) => login("hank", `parallel guess ${i}`)));
    expect(wrong.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect((await login("hank", PW)).status).toBe(429);
    const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => login(`phantom-${i}`, "guess guess guess", "10.8.8.8")));
    expect(burst.filter((r) => r.status === 429)).toHaveLength(5);
  });

  it("answers a flood of unknown logins from many addresses at once: a bounded queue, the rest 503 server_busy with Retry-After", async () => {
    await newUser("ivy");
    const flood = Array.from({ length: 64 }, (_, i) => login(`stranger-${i}`, "not the password", `10.64.${i}.1`));
    const real = login("ivy", PW, "10.65.0.1");
    const answers = await Promise.all(flood);
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    const busy = answers.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) {
      expect(r.body.error).toBe("server_busy");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
    // The queue holds at most the running and waiting hashes; everything else was refused without one.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(64 - busy.length);
    expect([200, 503]).toContain((await real).status);
    // The flood over, the real user gets in, from the same address.
    expect((await login("ivy", PW, "10.65.0.1")).status).toBe(200);
  });

  it("holds the per-address throttle in the store, so every replica sees the same failures", async () => {
    for (let i = 0; i < SIGN_IN_POLICY.addressMaxFailures; i++) expect((await login(`nobody-${i}`, "whatever it is", "10.7.7.7")).status).toBe(401);
    // Another replica: its own throttle over the same store.
    const replica = new AddressThrottle(t.store, t.clock, SIGN_IN_POLICY.addressMaxFailures, SIGN_IN_POLICY.addressWindowMs);
    expect(await replica.blockedFor("10.7.7.7")).toBeGreaterThan(0);
    expect(await replica.blockedFor("10.7.7.8")).toBe(0);
    const row = await t.store.db.selectFrom("sign_in_address_failures").selectAll().where("address", "=", "10.7.7.7").executeTakeFirstOrThrow();
    expect(row.failures).toBe(SIGN_IN_POLICY.addressMaxFailures);
  });

  it("lists, ends and logs out sessions; a super-admin closes them all; deactivation ends them", async () => {
    const id = await newUser("frank");
    const a = (await login("frank", PW)).body.token;
    const b = (await login("frank", PW)).body.token;
    const c = (await login("frank", PW)).body.token;
    const listed = (await client(t.app, a).get("/api/users/me/sessions")).body.sessions;
    expect(listed).toHaveLength(3);
    expect(listed.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    const idOfB = (await client(t.app, b).get("/api/users/me/sessions")).body.sessions.find((s: { current: boolean }) => s.current).id;
    expect((await client(t.app, a).delete(`/api/users/me/sessions/${idOfB}`)).status).toBe(204);
    expect((await client(t.app, b).get("/api/users/me")).status).toBe(401);
    expect((await client(t.app, seed.member.token).delete(`/api/users/me/sessions/${idOfB}`)).status).toBe(404);
    expect((await client(t.app, c).post("/api/auth/logout")).status).toBe(204);
    expect((await client(t.app, c).get("/api/users/me")).status).toBe(401);
    expect((await client(t.app, seed.member.token).post("/api/auth/logout")).status).toBe(400);

    expect((await seed.orgAdmin.api.delete(`/api/admin/users/${id}/sessions`)).status).toBe(403);
    expect((await seed.admin.delete(`/api/admin/users/${id}/sessions`)).body).toEqual({ closed: 1 });
    expect((await client(t.app, a).get("/api/users/me")).status).toBe(401);

    const d = (await login("frank", PW)).body.token;
    await seed.admin.patch(`/api/admin/users/${id}`, { active: false });
    expect((await client(t.app, d).get("/api/users/me")).status).toBe(401);
    expect((await login("frank", PW)).status).toBe(401);
  });

  it("issues single-use, expiring resets to super-admins and org admins of the user, and counts each step", async () => {
    const id = await newUser("gina");
    const metrics = async () => (await client(t.app).get("/metrics")).body;
    const requested = sample(await metrics(), 'service_auth_password_resets_total{step="requested"}');
    const confirmed = sample(await metrics(), 'service_auth_password_resets_total{step="confirmed"}');
    const session = client(t.app, (await login("gina", PW)).body.token);

    expect((await seed.outsider.api.post(`/api/admin/users/${id}/password-reset`)).status).toBe(404);
    expect((await seed.member.api.post(`/api/admin/users/${id}/password-reset`)).status).toBe(404);
    const reset = await seed.orgAdmin.api.post(`/api/admin/users/${id}/password-reset`);
    expect(reset.status).toBe(201);
    expect(reset.body.token).toMatch(/^prt_/);
    const anon = client(t.app);
    expect((await anon.post("/api/auth/password-reset/confirm", { token: reset.body.token, password: "short" })).status).toBe(400);
    expect((await anon.post("/api/auth/password-reset/confirm", { token: reset.body.token, password: NEW_PW })).status).toBe(200);
    expect((await anon.post("/api/auth/password-reset/confirm", { token: reset.body.token, password: "a third passphrase" })).status).toBe(400);
    expect((await session.get("/api/users/me")).status).toBe(401);
    expect((await login("gina", PW)).status).toBe(401);
    expect((await login("gina", NEW_PW)).body.password_change_required).toBe(false);

    const older = (await seed.admin.post(`/api/admin/users/${id}/password-reset`)).body.token;
    const late = (await seed.admin.post(`/api/admin/users/${id}/password-reset`)).body.token;
    expect((await anon.post("/api/auth/password-reset/confirm", { token: older, password: PW })).status).toBe(400);
    t.clock.advance(60 * 60_000);
    expect((await anon.post("/api/auth/password-reset/confirm", { token: late, password: PW })).status).toBe(400);

    // An org admin cannot take over a super-admin, nor anyone outside their orgs.
    const boss = (await seed.admin.get("/api/users/me")).body.id;
    expect((await seed.orgAdmin.api.post(`/api/admin/users/${boss}/password-reset`)).status).toBe(404);
    expect(sample(await metrics(), 'service_auth_password_resets_total{step="requested"}')).toBe(requested + 3);
    expect(sample(await metrics(), 'service_auth_password_resets_total{step="confirmed"}')).toBe(confirmed + 1);
  });
});

describe.each(storeKinds())("expiring passwords on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_PASSWORD_MAX_AGE: "720h" });
  });
  afterAll(() => t.close());

  it("asks for a new password once the old one is 30 days old", async () => {
    const admin = client(t.app, t.adminToken);
    const me = (await admin.get("/api/users/me")).body;
    await admin.put("/api/users/me/password", { password: PW });
    const anon = client(t.app);
    expect((await anon.post("/api/auth/login", { login: me.login, password: PW })).body.password_change_required).toBe(false);
    t.clock.advance(720 * 3600_000);
    const late = (await anon.post("/api/auth/login", { login: me.login, password: PW })).body;
    expect(late.password_change_required).toBe(true);
    expect((await client(t.app, late.token).get("/api/admin/orgs")).status).toBe(403);
  });
});

describe.each(storeKinds())("a store failing during sign-in on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t.close());

  it("answers 500 saying nothing internal, and counts the attempt as an error", async () => {
    const admin = client(t.app, t.adminToken);
    await admin.put("/api/users/me/password", { password: PW });
    // The session cannot be written: the store fails after the password was checked.
    await t.store.db.schema.dropTable("sessions").execute();
    const res = await client(t.app).post("/api/auth/login", { login: "admin", password: PW });
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toMatch(/sessions|sql/i);
    expect(sample((await client(t.app).get("/metrics")).body, 'service_auth_logins_total{result="error"}')).toBe(1);
  });
});
