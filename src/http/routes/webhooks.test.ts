import { tokenMatches } from "../../webhooks/webhook-token.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SealError } from "../../core/sealer.js";
import { insertDelivery } from "../../store/deliveries.js";
import { client, seedTenancy, startTestApp, storeKinds, type Client, type Reply, type TestApp } from "../../test-support/harness.js";

const TOKEN_RE = /wh_[A-Za-z0-9_-]{43}/g;
const A_TOKEN = /wh_[A-Za-z0-9_-]{43}/;

describe.each(storeKinds())("webhook management API on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let base: string;
  /** Every response of the suite, for the token scan at the end. */
  const seen: { method: string; url: string; status: number; body: string }[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_BASE_URL: "https://hooks.example.com/" });
    const inject = t.app.inject.bind(t.app);
    t.app.inject = (async (opts: { method: string; url: string }) => {
      const res = await inject(opts as never);
      seen.push({ method: opts.method, url: opts.url, status: res.statusCode, body: res.body });
      return res;
    }) as never;
    seed = await seedTenancy(t);
    base = `/api/teams/${seed.team.id}/webhooks`;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, api: Client = seed.teamAdmin.api) => api.post(base, body);

  it("creates a config with every default, a delivery URL and a token shown once", async () => {
    const r = await create({ provider: "github", name: "Reviews" });
    expect(r.status).toBe(201);
    const { config, token } = r.body;
    expect(token).toMatch(/^wh_[A-Za-z0-9_-]{43}$/);
    expect(config).toMatchObject({
      tenant_id: seed.team.id,
      provider: "forge_b",
      name: "Reviews",
      enabled: true,
      token_last4: token.slice(-4),
      sign_mode: "hmac",
      rate: 1,
      burst: 10,
      monthly_call_limit: 0,
      event_allowlist: [],
      label_allowlist: [],
      hold_labels: [],
      project_allowlist: [],
      author_allowlist: [],
      bot_ids: [],
      wildcard_bots: false,
      default_bot_id: null,
      bot_rules: null,
      launch_vars: {},
      operator_launch_vars: {},
      key_overrides: {},
      secret_overrides: {},
      review_request_logins: [],
      review_on_sync: false,
      overlap: "",
      retry_usage_window: null,
      retry_max_attempts: null,
      retry_max_wait: null,
      retry_jitter: null,
      forge_base_url: null,
      forge_token: null,
      authorized_repliers: [],
      min_replier_role: "developer",
      branch_improve_as_pr: false,
      auto_implement_on_open: false,
      acknowledge_commands: false,
      explain_refusals: false,
      provisioned_by: null,
      delivery_url: `https://hooks.example.com/api/webhooks/forge_b/${config.id}`,
    });
    expect(config.id).toMatch(/^whk_/);
    expect(Object.keys(config).filter((k) => /hash|fingerprint|sealed|secret$/.test(k))).toEqual([]);
    const read = await seed.member.api.get(`${base}/${config.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(config);
    expect(JSON.stringify(read.body)).not.toContain(token);
  });

  it("stores aliases canonically and applies each provider's sign mode", async () => {
    expect((await create({ provider: "gitlab" })).body.config).toMatchObject({ provider: "forge_a", sign_mode: "token", name: "forge_a" });
    expect((await create({ provider: "gitea" })).body.config).toMatchObject({ provider: "forge_c", sign_mode: "hmac" });
    expect((await create({ provider: "generic", sign_mode: "hmac" })).body.config).toMatchObject({ provider: "generic", sign_mode: "hmac" });
    for (const provider of ["forge_b", "forge_c", "forgejo"]) {
      const r = await create({ provider, sign_mode: "token" });
      expect(r.status, provider).toBe(400);
      expect(r.body).toMatchObject({ error: "invalid_request", field: "sign_mode" });
    }
    expect((await create({ provider: "bitbucket" })).body.field).toBe("provider");
    expect((await create({ name: "no provider" })).body.field).toBe("provider");
  });

  it("refuses read-only and unknown fields by name, on create and on PATCH", async () => {
    const made = (await create({ provider: "generic" })).body.config;
    for (const field of ["id", "tenant_id", "token_last4", "token", "provisioned_by", "created_at", "delivery_url"]) {
      const c = await create({ provider: "generic", [field]: "x" });
      expect(c.status, field).toBe(400);
      expect(c.body.field).toBe(field);
    }
    for (const field of [
      "id",
      "tenant_id",
      "provider",
      "token_last4",
      "token",
      "sealed_secret",
      "provisioned_by",
      "created_at",
      "updated_at",
      "delivery_url",
      "colour",
    ]) {
      const p = await seed.teamAdmin.api.patch(`${base}/${made.id}`, { [field]: "x" });
      expect(p.status, field).toBe(400);
      expect(p.body).toMatchObject({ error: "invalid_request", field });
    }
    const after = await seed.member.api.get(`${base}/${made.id}`);
    expect(after.body).toEqual(made);
  });

  it("updates the table's fields and validates types and ranges", async () => {
    const made = (await create({ provider: "gitlab" })).body.config;
    const patch = {
      name: "Renamed",
      enabled: false,
      rate: 2.5,
      burst: 3,
      monthly_call_limit: 500,
      overlap: "skip",
      min_replier_role: "maintainer",
      project_allowlist: ["group/sub/repo", "group/*"],
      launch_vars: { PR_MODE: "summary" },
      event_allowlist: ["Merge Request Hook"],
      bot_ids: ["review-pr", "converse"],
      default_bot_id: "review-pr",
      review_on_sync: true,
      forge_base_url: "https://gitlab.example.com",
      bot_rules: [{ bot_id: "converse", events: ["note"], commands: { "re-review": "when_args_present" } }],
    };
    const r = await seed.teamAdmin.api.patch(`${base}/${made.id}`, patch);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...patch, bot_rules: [expect.objectContaining({ bot_id: "converse", author_scope: "shared" })] });
    expect(r.body.updated_at).toBeDefined();
    for (const [body, field] of [
      [{ rate: 0 }, "rate"],
      [{ burst: 0 }, "burst"],
      [{ monthly_call_limit: -1 }, "monthly_call_limit"],
      [{ overlap: "x" }, "overlap"],
      [{ min_replier_role: "root" }, "min_replier_role"],
      [{ project_allowlist: ["nope"] }, "project_allowlist.0"],
      [{ launch_vars: { "1X": "v" } }, "launch_vars.1X"],
      [{ forge_base_url: "file:///etc" }, "forge_base_url"],
      [{}, "body"],
    ] as const) {
      const bad = await seed.teamAdmin.api.patch(`${base}/${made.id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.field).toBe(field);
    }
    expect((await seed.member.api.get(`${base}/${made.id}`)).body.rate).toBe(2.5);
  });

  it("refuses unknown bots by name and takes org-registered ones", async () => {
    const bad = await create({ provider: "forge_b", bot_ids: ["review-pr", "ghost"] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ field: "bot_ids.1" });
    expect(bad.body.detail).toContain("ghost");
    expect((await create({ provider: "forge_b", default_bot_id: "ghost" })).body.field).toBe("default_bot_id");
    expect((await create({ provider: "forge_b", bot_rules: [{ bot_id: "ghost" }] })).body.field).toBe("bot_rules.0.bot_id");
    expect((await seed.orgAdmin.api.post(`/api/orgs/${seed.org.id}/bots`, { id: "ghost", name: "Ghost" })).status).toBe(201);
    expect((await create({ provider: "forge_b", bot_ids: ["review-pr", "ghost"] })).status).toBe(201);
  });

  it("refuses a default bot or a bot rule with an empty bot_ids, at create and at PATCH", async () => {
    const created = await create({ provider: "generic", default_bot_id: "review-pr" });
    expect([created.status, created.body.error, created.body.field]).toEqual([400, "invalid_request", "default_bot_id"]);
    const made = (await create({ provider: "generic", bot_ids: ["review-pr"], default_bot_id: "review-pr" })).body.config;
    const emptied = await seed.teamAdmin.api.patch(`${base}/${made.id}`, { bot_ids: [] });
    expect([emptied.status, emptied.body.field]).toEqual([400, "default_bot_id"]);
    expect((await seed.member.api.get(`${base}/${made.id}`)).body).toMatchObject({ bot_ids: ["review-pr"], default_bot_id: "review-pr" });
  });

  it('takes bot_ids ["*"] only with wildcard_bots, logging a warning and auditing it', async () => {
    const refused = await create({ provider: "forge_b", bot_ids: ["*"] });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe("bot_ids");
    const before = t.logs.length;
    const r = await create({ provider: "forge_b", bot_ids: ["*"], wildcard_bots: true });
    expect(r.status).toBe(201);
    const warning = t.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.webhook_id === r.body.config.id);
    expect(warning).toMatchObject({ level: 40, wildcard_bots: true });
    const audit = await t.store.db.selectFrom("audit_log").selectAll().where("target_id", "=", r.body.config.id).execute();
    expect(audit.map((a) => [a.action, JSON.parse(a.detail).wildcard_bots])).toEqual([["webhook.create", true]]);
  });

  it("checks key_overrides, forge_token and secret_overrides against stored credentials", async () => {
    const teamKey = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/keys`, { provider: "anthropic", name: "a", secret: "sk-ant-0123456789abcdef" }))
      .body;
    const forgeKey = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/keys`, { provider: "forge", name: "bot", secret: "glpat-0123456789abcdef" }))
      .body;
    const orgKey = (await seed.orgAdmin.api.post(`/api/orgs/${seed.org.id}/keys`, { provider: "openai", name: "shared", secret: "sk-0123456789abcdef00" }))
      .body;
    const otherTeamKey = (
      await seed.outsider.api.post(`/api/teams/${seed.otherTeam.id}/keys`, { provider: "anthropic", name: "theirs", secret: "sk-ant-zzzzzzzzzzzzzzzz" })
    ).body;
    const org2 = (await seed.admin.post("/api/admin/orgs", { name: "Globex" })).body;
    const foreignKey = (await seed.admin.post(`/api/orgs/${org2.id}/keys`, { provider: "anthropic", name: "foreign", secret: "sk-ant-yyyyyyyyyyyyyyyy" })).body;
    const secret = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/secrets`, { name: "NPM_TOKEN", value: "npm_0123456789abcdef" })).body;

    const good = await create({
      provider: "forge_b",
      key_overrides: { anthropic: teamKey.id, openai: orgKey.id },
      forge_token: forgeKey.id,
      secret_overrides: { NPM_TOKEN: secret.id },
    });
    expect(good.status).toBe(201);
    expect(good.body.config).toMatchObject({ key_overrides: { anthropic: teamKey.id, openai: orgKey.id }, forge_token: forgeKey.id });

    for (const [body, field] of [
      [{ key_overrides: { openai: teamKey.id } }, "key_overrides.openai"],
      [{ key_overrides: { anthropic: "key_missing" } }, "key_overrides.anthropic"],
      [{ key_overrides: { anthropic: foreignKey.id } }, "key_overrides.anthropic"],
      [{ key_overrides: { anthropic: otherTeamKey.id } }, "key_overrides.anthropic"],
      [{ forge_token: teamKey.id }, "forge_token"],
      [{ secret_overrides: { NPM_TOKEN: "sec_missing" } }, "secret_overrides.NPM_TOKEN"],
    ] as const) {
      const r = await create({ provider: "forge_b", ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.field).toBe(field);
    }
    // An org key the org's credential audience keeps from this team is refused too.
    await seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { credential_audience: [seed.otherTeam.id] });
    expect((await create({ provider: "forge_b", key_overrides: { openai: orgKey.id } })).body.field).toBe("key_overrides.openai");
    await seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { credential_audience: "all" });
    // A key a webhook names cannot be deleted from under it.
    expect((await seed.teamAdmin.api.delete(`/api/teams/${seed.team.id}/keys/${teamKey.id}`)).status).toBe(409);
    expect((await seed.teamAdmin.api.delete(`/api/teams/${seed.team.id}/secrets/${secret.id}`)).status).toBe(409);
  });

  it("rotates: a new token once, the HMAC secret re-sealed, the old token dead", async () => {
    const { config, token } = (await create({ provider: "forge_b" })).body;
    // What the delivery path reads: the cached target, dropped by this process's rotate.
    const target = async (id: string) => t.services.targets.get(id);
    expect(tokenMatches((await target(config.id))!.secrets, token)).toBe(true);
    expect((await target(config.id))!.hmacSecret).toBe(token);
    const before = await t.store.db.selectFrom("webhooks").select("sealed_blob").where("id", "=", config.id).executeTakeFirstOrThrow();
    const r = await seed.teamAdmin.api.post(`${base}/${config.id}/rotate`);
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^wh_/);
    expect(r.body.token).not.toBe(token);
    expect(r.body.config.token_last4).toBe(r.body.token.slice(-4));
    expect(tokenMatches((await target(config.id))!.secrets, token)).toBe(false);
    expect(tokenMatches((await target(config.id))!.secrets, r.body.token)).toBe(true);
    expect((await target(config.id))!.hmacSecret).toBe(r.body.token);
    const after = await t.store.db.selectFrom("webhooks").select("sealed_blob").where("id", "=", config.id).executeTakeFirstOrThrow();
    expect(after.sealed_blob).not.toBe(before.sealed_blob);
    expect(await target("whk_missing")).toBeUndefined();
  });

  it("seals only HMAC-capable configs, and a sealed value does not open on another webhook or truncated", async () => {
    const a = (await create({ provider: "forge_c" })).body.config;
    const b = (await create({ provider: "forge_b" })).body.config;
    const gitlab = (await create({ provider: "forge_a" })).body;
    const row = (id: string) => t.store.db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect((await row(gitlab.config.id)).sealed_blob).toBeNull();
    const gitlabTarget = (await t.services.targets.get(gitlab.config.id))!;
    expect(gitlabTarget.hmacSecret).toBeUndefined();
    expect(tokenMatches(gitlabTarget.secrets, gitlab.token)).toBe(true);
    // Written behind the service's back, as another replica or a copied row would: nothing is cached yet.
    const sealedA = await row(a.id);
    await t.store.db.updateTable("webhooks").set({ sealed_key_id: sealedA.sealed_key_id, sealed_blob: sealedA.sealed_blob }).where("id", "=", b.id).execute();
    await expect(t.services.targets.get(b.id)).rejects.toThrow(SealError);
    const raw = Buffer.from(sealedA.sealed_blob!, "base64url");
    await t.store.db
      .updateTable("webhooks")
      .set({ sealed_blob: raw.subarray(0, raw.length - 2).toString("base64url") })
      .where("id", "=", a.id)
      .execute();
    await expect(t.services.targets.get(a.id)).rejects.toThrow(SealError);
  });

  it("refuses delete and rotate of a provisioned config with 409", async () => {
    const admin = { userId: seed.teamAdmin.id, login: "team-admin", superAdmin: false, tokenId: "pat_x" };
    const { config } = await t.services.webhooks.create(admin, seed.team.id, { provider: "forge_b" }, { provisionedBy: "forge:conn_1" });
    expect(config.provisioned_by).toBe("forge:conn_1");
    expect((await seed.teamAdmin.api.post(`${base}/${config.id}/rotate`)).status).toBe(409);
    expect((await seed.teamAdmin.api.delete(`${base}/${config.id}`)).status).toBe(409);
    const patched = await seed.teamAdmin.api.patch(`${base}/${config.id}`, { label_allowlist: ["bot"] });
    expect(patched.status).toBe(200);
    expect(patched.body.provisioned_by).toBe("forge:conn_1");
  });

  it("lists deliveries newest first with every field, honours limit, and keeps them after delete", async () => {
    const { config } = (await create({ provider: "forge_b" })).body;
    // Four filtered deliveries, then one launched.
    for (let i = 0; i < 5; i++) await insertDelivery(t.store.db, listedDelivery(seed.team.id, config.id, t.clock.now(), i, i === 4));
    const r = await seed.member.api.get(`${base}/${config.id}/deliveries`);
    expect(r.status).toBe(200);
    expect(r.body.deliveries.map((d: { subject_id: string }) => d.subject_id)).toEqual(["4", "3", "2", "1", "0"]);
    expect(Object.keys(r.body.deliveries[0]).sort()).toEqual([
      "attempts",
      "bot_id",
      "created_at",
      "denial_reason",
      "event_action",
      "event_kind",
      "failed_at",
      "forge_delivery_id",
      "id",
      "idempotency_key",
      "launched_at",
      "parent_subject_id",
      "payload_sha256",
      "project_path",
      "provider",
      "reason",
      "refusal_code",
      "run_id",
      "source_ip",
      "status",
      "subject_id",
      "subject_sha",
      "tenant_id",
      "updated_at",
      "webhook_id",
    ]);
    expect(r.body.deliveries[0]).toMatchObject({ status: "launched", run_id: "run_1", attempts: 0, forge_delivery_id: "gd-4" });
    expect((await seed.member.api.get(`${base}/${config.id}/deliveries?limit=2`)).body.deliveries).toHaveLength(2);
    for (const q of ["limit=0", "limit=1001", "limit=x"]) {
      const bad = await seed.member.api.get(`${base}/${config.id}/deliveries?${q}`);
      expect(bad.status, q).toBe(400);
    }
    expect((await seed.teamAdmin.api.delete(`${base}/${config.id}`)).status).toBe(204);
    expect((await seed.member.api.get(`${base}/${config.id}`)).status).toBe(404);
    expect((await seed.member.api.get(`${base}/${config.id}/deliveries`)).status).toBe(404);
    const kept = await t.store.db.selectFrom("webhook_deliveries").select("id").where("webhook_id", "=", config.id).execute();
    expect(kept).toHaveLength(5);
  });

  it("authorises every route: anonymous 401, other team 404, member reads, admins write", async () => {
    const anon = client(t.app);
    const fresh = async () => (await create({ provider: "generic" })).body.config.id as string;
    const routes: { name: string; write: boolean; call: (api: Client, id: string) => Promise<Reply> }[] = [
      { name: "list", write: false, call: (api) => api.get(base) },
      { name: "read", write: false, call: (api, id) => api.get(`${base}/${id}`) },
      { name: "deliveries", write: false, call: (api, id) => api.get(`${base}/${id}/deliveries`) },
      { name: "create", write: true, call: (api) => api.post(base, { provider: "generic" }) },
      { name: "update", write: true, call: (api, id) => api.patch(`${base}/${id}`, { name: "n" }) },
      { name: "rotate", write: true, call: (api, id) => api.post(`${base}/${id}/rotate`) },
      { name: "delete", write: true, call: (api, id) => api.delete(`${base}/${id}`) },
    ];
    for (const route of routes) {
      const expectStatus = async (who: string, api: Client, want: number | ((s: number) => boolean)) => {
        const r = await route.call(api, await fresh());
        if (typeof want === "number") expect(r.status, `${route.name} as ${who}`).toBe(want);
        else expect(want(r.status), `${route.name} as ${who}: ${r.status}`).toBe(true);
      };
      const ok = (s: number) => s >= 200 && s < 300;
      await expectStatus("anonymous", anon, 401);
      await expectStatus("member of another team", seed.outsider.api, 404);
      await expectStatus("member", seed.member.api, route.write ? 403 : 200);
      await expectStatus("team admin", seed.teamAdmin.api, ok);
      await expectStatus("org admin", seed.orgAdmin.api, ok);
      await expectStatus("super-admin", seed.admin, ok);
    }
    // Another team's webhook id under this team's path reads as missing.
    const theirs = (await seed.outsider.api.post(`/api/teams/${seed.otherTeam.id}/webhooks`, { provider: "generic" })).body.config.id;
    expect((await seed.teamAdmin.api.get(`${base}/${theirs}`)).status).toBe(404);
    expect((await seed.teamAdmin.api.delete(`${base}/${theirs}`)).status).toBe(404);
  });

  it("audits every mutation without secrets", async () => {
    const rows = await t.store.db.selectFrom("audit_log").selectAll().where("target_type", "=", "webhook").execute();
    expect(new Set(rows.map((r) => r.action))).toEqual(new Set(["webhook.create", "webhook.update", "webhook.delete", "webhook.rotate"]));
    for (const r of rows) {
      expect(r.actor_id).toBeTruthy();
      expect(r.team_id).toBeTruthy();
      expect(r.detail).not.toMatch(A_TOKEN);
    }
  });

  // Runs last: it scans everything the suite above produced.
  it("shows wh_ tokens only in create and rotate responses; never in logs, other bodies or sealed form", async () => {
    const shown = new Set<string>();
    for (const r of seen) {
      const tokens = r.body.match(TOKEN_RE) ?? [];
      if (tokens.length === 0) continue;
      const allowed = mayShowToken(r);
      expect(allowed, `${r.method} ${r.url} → ${r.status} carries a token`).toBe(true);
      for (const x of tokens) shown.add(x);
    }
    expect(shown.size).toBeGreaterThan(20);
    expect(t.logs.join("\n")).not.toMatch(A_TOKEN);
    const rows = await t.store.db.selectFrom("webhooks").select(["sealed_blob", "token_hash"]).execute();
    expectNoSealedForm(seen.map((r) => r.body).join("\n") + t.logs.join("\n"), rows);
    const stored = JSON.stringify([
      await t.store.db.selectFrom("webhooks").selectAll().execute(),
      await t.store.db.selectFrom("audit_log").selectAll().execute(),
    ]);
    for (const token of shown) expect(stored).not.toContain(token);
  });
});

/** The `i`th of a webhook's deliveries for the listing test, a second apart: launched or filtered as a draft. */
function listedDelivery(teamId: string, webhookId: string, now: number, i: number, launched: boolean): Parameters<typeof insertDelivery>[1] {
  return {
    id: `dlv_${webhookId}_${i}`,
    tenant_id: teamId,
    webhook_id: webhookId,
    provider: "forge_b",
    status: launched ? "launched" : "filtered",
    idempotency_key: `gh|${webhookId}|${i}`,
    payload_sha256: "ab".repeat(32),
    event_kind: "pull_request",
    event_action: "opened",
    project_path: "acme/api",
    subject_id: String(i),
    source_ip: "127.0.0.1",
    run_id: launched ? "run_1" : null,
    launched_at: launched ? now + i : null,
    reason: launched ? null : "draft",
    forge_delivery_id: `gd-${i}`,
    created_at: now + i * 1000,
    updated_at: now + i * 1000,
  };
}

/** Only a webhook's creation and its rotation answer its token. */
function mayShowToken(r: { method: string; url: string; status: number }): boolean {
  const path = r.url.split("?")[0]!;
  return r.method === "POST" && (r.status === 201 || r.status === 200) && (/\/webhooks$/.test(path) || /\/rotate$/.test(path));
}

/** Neither a sealed secret nor a token's hash is ever shown. */
function expectNoSealedForm(everything: string, rows: { sealed_blob: string | null; token_hash: string }[]): void {
  for (const row of rows) {
    if (row.sealed_blob) expect(everything).not.toContain(row.sealed_blob);
    expect(everything).not.toContain(row.token_hash.split("$")[1]);
  }
}
