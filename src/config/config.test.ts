import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { parseDuration } from "./env-reader.js";

const KEY = Buffer.alloc(32, 1).toString("base64");

describe("loadConfig", () => {
  it("defaults to the embedded service on 127.0.0.1:8080 with SQLite in ./data", () => {
    const c = loadConfig({}, "/srv/app");
    expect(c).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      baseUrl: "http://127.0.0.1:8080",
      dataDir: "/srv/app/data",
      databaseUrl: "",
      runner: "inprocess",
    });
    expect(c.webhookMonthlyCallsDefault).toBe(10_000);
    expect(c.syncDebounceMs).toBe(180_000);
    expect(c.syncMaxWaitMs).toBe(900_000);
    expect(c.databasePoolSize).toBe(10);
  });

  it("lends the platform keys SERVICE_PLATFORM_KEY_<PROVIDER> names, and refuses a provider it cannot name", () => {
    expect(loadConfig({}).platformKeys).toEqual({});
    expect(loadConfig({ SERVICE_PLATFORM_KEY_ANTHROPIC: "sk-a", SERVICE_PLATFORM_KEY_OPEN_AI: "sk-o", SERVICE_PLATFORM_KEY_NONE: "" }).platformKeys).toEqual({
      anthropic: "sk-a",
      open_ai: "sk-o",
    });
    expect(() => loadConfig({ "SERVICE_PLATFORM_KEY_azure-x": "sk" })).toThrow("SERVICE_PLATFORM_KEY_azure-x: the provider");
  });

  it("reads the PostgreSQL pool size and the HTTP limits, and refuses values out of range", () => {
    expect(loadConfig({ SERVICE_DATABASE_POOL_SIZE: "3", SERVICE_HTTP_BODY_BUDGET_MB: "32", SERVICE_HTTP_HEADERS_TIMEOUT: "5s" })).toMatchObject({
      databasePoolSize: 3,
      http: { bodyBudgetBytes: 32 * 1024 * 1024, headersTimeoutMs: 5000, requestTimeoutMs: 30_000, maxConnections: 4096 },
    });
    for (const [name, value] of [
      ["SERVICE_DATABASE_POOL_SIZE", "0"],
      ["SERVICE_DATABASE_POOL_SIZE", "many"],
      ["SERVICE_HTTP_BODY_BUDGET_MB", "25"],
      ["SERVICE_HTTP_HEADERS_TIMEOUT", "500ms"],
      ["SERVICE_HTTP_REQUEST_TIMEOUT", "5s"],
      ["SERVICE_HTTP_MAX_CONNECTIONS", "8"],
    ]) {
      expect(() => loadConfig({ [name!]: value }), `${name}=${value}`).toThrow(name);
    }
  });

  it.each([
    ["unset", undefined, 0],
    ["empty", "", 0],
    ["negative", "-5", 0],
    ["not a number", "lots", 0],
    ["zero", "0", 0],
    ["a value", "7", 7],
    ["a fraction of a count", "7.9", 7],
  ])("reads SERVICE_ORG_DEFAULT_* leniently: %s → %i", (_name, raw, want) => {
    const env =
      raw === undefined
        ? {}
        : {
            SERVICE_ORG_DEFAULT_MAX_CONCURRENT_RUNS: raw,
            SERVICE_ORG_DEFAULT_LAUNCH_RATE_PER_MIN: raw,
            SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA: raw,
          };
    expect(loadConfig(env).orgDefaults).toMatchObject({ maxConcurrentRuns: want, launchRatePerMin: want, monthlyRunQuota: want });
  });

  it("keeps the cost cap default in micro-USD", () => {
    expect(loadConfig({ SERVICE_ORG_DEFAULT_MONTHLY_COST_CAP_USD: "12.345678" }).orgDefaults.monthlyCostCapMicroUsd).toBe(12_345_678);
  });

  it("reports every problem together, each by its variable's name", () => {
    try {
      loadConfig({ SERVICE_PORT: "http", SERVICE_SQLITE_SYNC: "sometimes", SERVICE_WEBHOOK_SYNC_DEBOUNCE: "soon", SERVICE_ADMIN_TOKEN: "secret" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const names = (err as ConfigError).problems.map((p) => p.split(":")[0]);
      expect(names).toEqual(["SERVICE_PORT", "SERVICE_ADMIN_TOKEN", "SERVICE_SQLITE_SYNC", "SERVICE_WEBHOOK_SYNC_DEBOUNCE"]);
    }
  });

  it("requires a shared seal key with PostgreSQL, so replicas open each other's secrets", () => {
    expect(() => loadConfig({ SERVICE_DATABASE_URL: "postgres://db/x" })).toThrow(/SERVICE_SEAL_KEY: required/);
    expect(loadConfig({ SERVICE_DATABASE_URL: "postgres://db/x", SERVICE_SEAL_KEY: KEY }).databaseUrl).toBe("postgres://db/x");
    expect(() => loadConfig({ SERVICE_DATABASE_URL: "mysql://db/x", SERVICE_SEAL_KEY: KEY })).toThrow(/SERVICE_DATABASE_URL/);
  });

  it.each([
    [undefined, false],
    ["true", true],
    ["2", 2],
    ["10.0.0.0/8, 127.0.0.1", ["10.0.0.0/8", "127.0.0.1"]],
  ])("reads SERVICE_TRUST_PROXY %s", (raw, want) => {
    expect(loadConfig(raw === undefined ? {} : { SERVICE_TRUST_PROXY: raw }).trustProxy).toEqual(want);
  });

  it("refuses a SERVICE_TRUST_PROXY it cannot read", () => {
    expect(() => loadConfig({ SERVICE_TRUST_PROXY: "the load balancer" })).toThrow(/SERVICE_TRUST_PROXY/);
  });

  it.each([
    ["90", 90_000],
    ["30s", 30_000],
    ["3m", 180_000],
    ["500ms", 500],
    ["1h", 3_600_000],
    ["0", 0],
    ["1.5m", 90_000],
    ["soon", undefined],
    ["-1s", undefined],
  ])("parses the duration %s", (raw, ms) => {
    expect(parseDuration(raw)).toBe(ms);
  });
});
