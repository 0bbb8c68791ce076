import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import { loadConfig, type Config } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { composeServices } from "../compose.js";
import { ManualClock } from "../core/clock.js";
import { randomIds } from "../core/ids.js";
import { Sealer } from "../core/sealer.js";
import { buildApp } from "../http/app.js";
import type { App, Services } from "../http/services.js";
import { Metrics } from "../metrics/metrics.js";
import { openStore, type Store, type StoreKind, type StoreOptions } from "../store/store.js";
import { bootstrapAdmin } from "../tenancy/bootstrap.js";
import { answerChecker } from "./answer-check.js";

/** The compiled writer-thread module: `npm test` builds dist/ first, since a thread cannot load src/*.ts. */
export const WRITER_ENTRY = new URL("../../dist/store/sqlite/writer-worker.js", import.meta.url);
/** The compiled checkpoint-thread module, for the same reason. */
export const CHECKPOINTER_ENTRY = new URL("../../dist/store/sqlite/checkpointer-worker.js", import.meta.url);

/** SQLite always; PostgreSQL too when SERVICE_TEST_DATABASE_URL names a server. */
export function storeKinds(): StoreKind[] {
  return process.env.SERVICE_TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
}

export interface TestStore {
  store: Store;
  /** The SQLite file's folder, for a store on a file. */
  dir?: string;
  close(): Promise<void>;
}

/**
 * A fresh, migrated store: a private SQLite database (in memory, or in a file of its own in a
 * temporary directory with `sqlitePath` "file", as the service runs it: a writer thread and a
 * checkpoint thread), or a new PostgreSQL schema. `sqliteOptions` can fix where a file store
 * writes deliveries.
 */
export async function openTestStore(
  kind: StoreKind,
  sqlitePath = ":memory:",
  sqliteOptions: Pick<StoreOptions, "eventLoopLoad" | "sqliteWriterEntry" | "sqliteWriterThread"> = {},
): Promise<TestStore> {
  if (kind === "sqlite") {
    const dir = sqlitePath === "file" ? mkdtempSync(path.join(os.tmpdir(), "store-")) : undefined;
    const store = await openStore({
      databaseUrl: "",
      sqlitePath: dir ? path.join(dir, "service.db") : sqlitePath,
      sqliteWriterEntry: WRITER_ENTRY,
      sqliteCheckpointerEntry: CHECKPOINTER_ENTRY,
      ...sqliteOptions,
    });
    return {
      store,
      ...(dir && { dir }),
      close: async () => {
        await store.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.SERVICE_TEST_DATABASE_URL;
  if (!url) throw new Error("SERVICE_TEST_DATABASE_URL is not set");
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const store = await openStore({ databaseUrl: url, pgSchema: schema, pgPoolSize: 20 });
  return {
    store,
    close: async () => {
      await store.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

export interface TestApp {
  app: App;
  services: Services;
  store: Store;
  clock: ManualClock;
  config: Config;
  /** The super-admin's token. */
  adminToken: string;
  /** Every log line the app wrote, as JSON text. */
  logs: string[];
  /** Every route registered, HEAD left out. */
  routes: { method: string; url: string; public: boolean }[];
  /** Answers that did not match the OpenAPI document (answer-check.ts): close() fails on any. */
  answerFaults: string[];
  /** Every answer checked against the document, as `METHOD route → status`. */
  answersChecked: string[];
  close(): Promise<void>;
}

export const TEST_ADMIN_TOKEN = `iap_${"t".repeat(43)}`;

/** The real app on a real store (SQLite on a file, as the service runs it), with a manual clock and a captured log. */
export async function startTestApp(kind: StoreKind, env: Record<string, string> = {}): Promise<TestApp> {
  const { store, close, dir } = await openTestStore(kind, "file");
  // The data directory is the SQLite file's folder, as in the service (a folder of its own on PostgreSQL).
  const dataDir = dir ?? mkdtempSync(path.join(os.tmpdir(), "data-"));
  const config = loadConfig({
    SERVICE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SERVICE_RUNNER: "none",
    SERVICE_DATA_DIR: dataDir,
    // The fake forges listen on loopback, which the service refuses unless an operator allows it.
    SERVICE_FORGE_ALLOWED_NETWORKS: "127.0.0.0/8",
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const log = createLogger("debug", sink);
  const clock = new ManualClock();
  const sealer = new Sealer("test", { test: randomBytes(32) });
  const metrics = new Metrics({ processMetrics: false });
  const services = composeServices({ config, store, clock, ids: randomIds, metrics, sealer, log });
  await bootstrapAdmin({ store, clock, ids: randomIds, tokens: services.tokens }, config.adminToken);
  const routes: TestApp["routes"] = [];
  const answers = answerChecker();
  const app = await buildApp(services, { logger: log, onRoute: (r) => routes.push(r), onAnswer: answers.check });
  await app.ready();
  return {
    app,
    services,
    store,
    clock,
    config,
    adminToken: config.adminToken,
    logs,
    routes,
    answerFaults: answers.faults,
    answersChecked: answers.checked,
    close: async () => {
      await app.close();
      await close();
      rmSync(dataDir, { recursive: true, force: true });
      if (answers.faults.length > 0) {
        throw new Error(`answers that do not match the OpenAPI document:\n${[...new Set(answers.faults)].join("\n")}`);
      }
    },
  };
}

/** A loopback port that was free a moment ago: for a service that must know its address (SERVICE_BASE_URL) before it listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The real app listening on loopback at its own SERVICE_BASE_URL, as a forge (or a test delivery) calls it over the network. */
export async function startListeningTestApp(kind: StoreKind, env: Record<string, string> = {}): Promise<TestApp & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await startTestApp(kind, { SERVICE_BASE_URL: url, ...env });
  await t.app.listen({ port, host: "127.0.0.1" });
  return { ...t, url };
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A JSON client over `inject` that presents a bearer token. */
export function client(app: App, token?: string) {
  const call = async <T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> => {
    const res = await app.inject({
      method: method as "GET",
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    const text = res.body;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (metrics text): keep the text.
    }
    return { status: res.statusCode, body: parsed as T, headers: res.headers };
  };
  return {
    get: <T = any>(url: string) => call<T>("GET", url),
    post: <T = any>(url: string, body?: unknown) => call<T>("POST", url, body ?? {}),
    patch: <T = any>(url: string, body: unknown) => call<T>("PATCH", url, body),
    put: <T = any>(url: string, body: unknown) => call<T>("PUT", url, body),
    delete: <T = any>(url: string) => call<T>("DELETE", url),
    call,
  };
}

export type Client = ReturnType<typeof client>;

/** An org with one team and users in the usual roles, each with its own token. */
export async function seedTenancy(t: TestApp) {
  const admin = client(t.app, t.adminToken);
  const org = (await admin.post("/api/admin/orgs", { name: "Acme" })).body;
  const team = (await admin.post(`/api/orgs/${org.id}/teams`, { name: "Platform" })).body;
  const otherTeam = (await admin.post(`/api/orgs/${org.id}/teams`, { name: "Other" })).body;
  const user = async (login: string) => {
    const u = (await admin.post("/api/admin/users", { login })).body;
    const tok = (await admin.post(`/api/admin/users/${u.id}/tokens`, { name: "test" })).body;
    return { id: u.id as string, token: tok.token as string, api: client(t.app, tok.token) };
  };
  const member = await user("member");
  const teamAdmin = await user("team-admin");
  const orgAdmin = await user("org-admin");
  const outsider = await user("outsider");
  await admin.put(`/api/teams/${team.id}/members/${member.id}`, { role: "member" });
  await admin.put(`/api/teams/${team.id}/members/${teamAdmin.id}`, { role: "admin" });
  await admin.put(`/api/orgs/${org.id}/members/${orgAdmin.id}`, { role: "admin" });
  await admin.put(`/api/teams/${otherTeam.id}/members/${outsider.id}`, { role: "admin" });
  return { admin, org, team, otherTeam, member, teamAdmin, orgAdmin, outsider };
}

export type Seed = Awaited<ReturnType<typeof seedTenancy>>;

/** An org and a team of their own (limits and status from the bodies), with the seed's member and team admin in them. */
export async function freshTeam(s: Seed, teamBody: Record<string, unknown> = {}, orgBody: Record<string, unknown> = {}) {
  const org = (await s.admin.post("/api/admin/orgs", { name: `O${Math.random()}`, ...orgBody })).body;
  const team = (await s.admin.post(`/api/orgs/${org.id}/teams`, { name: "T", ...teamBody })).body;
  await s.admin.put(`/api/teams/${team.id}/members/${s.member.id}`, { role: "member" });
  await s.admin.put(`/api/teams/${team.id}/members/${s.teamAdmin.id}`, { role: "admin" });
  return { org: org as { id: string }, team: team as { id: string } };
}
