import type { Cidr } from "../core/network-policy.js";
import type { LogBounds } from "../store/run-logs.js";
import path from "node:path";
import { allowedNetworks, type Env, isHttpUrl, lenientOf, parseTrustProxy, platformKeysOf, Reader, unknownNames } from "./env-reader.js";
import { type ResourceLimits, resourceLimitsOf } from "./resource-limits.js";

/** Every SERVICE_* variable the service reads, parsed once at start by {@link loadConfig}. */
export interface Config {
  host: string;
  port: number;
  /** Public address forges call; delivery URLs are built from it. */
  baseUrl: string;
  dataDir: string;
  /** postgres://… selects PostgreSQL; empty means the embedded SQLite file in dataDir. */
  databaseUrl: string;
  sqliteSync: "normal" | "full";
  /** Whether a SQLite file store may write deliveries on a thread of its own while the event loop is busy. */
  sqliteWriterThread: boolean;
  /** PostgreSQL connections this process keeps at most. */
  databasePoolSize: number;
  /** iap_… token that is a super-admin's from the first start on. */
  adminToken: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** base64 of 32 bytes; empty means a key file in dataDir, created on first start. */
  sealKey: string;
  /** Retired seal keys (base64, comma-separated) that still open values sealed under them. */
  sealKeysRetired: string[];
  orgDefaults: OrgLimitDefaults;
  /** The platform's usage-window retry policy, under the org's and the webhook's values. */
  retryDefaults: RetryPolicy;
  /** Monthly webhook calls per org when neither org nor webhook sets one. */
  webhookMonthlyCallsDefault: number;
  syncDebounceMs: number;
  syncMaxWaitMs: number;
  /** How long a provisioned webhook's replaced secret still proves deliveries after the service wrote a new one to the forge. */
  forgeRotationOverlapMs: number;
  /** How long a replica may use a webhook's configuration read from the store; 0 reads it per delivery. */
  configCacheTtlMs: number;
  /** `inprocess` runs bots inside the API process; `none` leaves runs to runner processes. */
  runner: "inprocess" | "none";
  runnerConcurrency: number;
  /** How each attempt's bot is isolated (SERVICE_RUNNER_SANDBOX, SERVICE_RUNNER_USER): see docs/security-model.md. */
  runnerSandbox: RunnerSandboxSettings;
  /** A runner's claim lapses this long after its last heartbeat; the reclaim then marks the run RUNNER_LOST. */
  runnerLeaseMs: number;
  botsFile: string;
  /** Keys the platform lends runs of every team (provider → value), from `SERVICE_PLATFORM_KEY_<PROVIDER>`. */
  platformKeys: Record<string, string>;
  /** Login of the service's own forge bot, used until forge connections name one. */
  forgeBotLogin: string;
  /** Private networks forge calls may reach (SERVICE_FORGE_ALLOWED_NETWORKS); public addresses need no entry. */
  forgeAllowedNetworks: Cidr[];
  /** Management API calls a minute per credential (or per address without one), per replica; 0 = no limit. */
  apiRateLimitPerMin: number;
  /**
   * Which proxies' X-Forwarded-For to believe for a caller's address (the delivery record's
   * source IP): false (none, the default), true (any), a hop count, or addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
  http: HttpLimits;
  /** How long a sign-in session lives. */
  sessionTtlMs: number;
  /** A password older than this must be changed at sign-in; 0 = passwords do not expire. */
  passwordMaxAgeMs: number;
  /** How much of each attempt's output is kept (its head and its tail), and for how long. */
  runLogs: RunLogSettings;
  /** Deliveries' requests kept for webhooks with keep_payloads: the largest body kept, and for how long. */
  keptRequests: KeptRequestSettings;
  /** Bearer token /metrics asks for; empty leaves /metrics open. */
  metricsToken: string;
  /** The first half of the context a run's commit status is shown under (`<prefix>/<bot>`). */
  statusContextPrefix: string;
  /** What start-up should say as warnings: unknown names, lenient fallbacks, an unreachable base URL. */
  warnings: string[];
}

/** What one HTTP connection, and all of them together, may hold of the process. */
export interface HttpLimits {
  /** Request body bytes held at once, in all; beyond it a body is refused with 503 and Retry-After. */
  bodyBudgetBytes: number;
  /** From a connection's first byte (or the previous request's end) to the end of the headers. */
  headersTimeoutMs: number;
  /** From the start of a request to the end of its body. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number;
  /** A connection silent this long in either direction is closed (a caller that stopped reading). */
  idleTimeoutMs: number;
  /** Open connections at most; past it new ones are closed at once. */
  maxConnections: number;
}

/** Platform defaults of the launch gate (Limits rule 2): 0 means unlimited. */
export interface OrgLimitDefaults {
  maxConcurrentRuns: number;
  launchRatePerMin: number;
  monthlyCostCapMicroUsd: number;
  monthlyRunQuota: number;
}

/** Limits rule 1: an override above 0 wins, otherwise the platform default; 0 means unlimited. */
export const effectiveLimit = (override: number, platformDefault: number): number => (override > 0 ? override : platformDefault);

/** How a run that dies on an exhausted provider usage window is retried. */
export interface RetryPolicy {
  usageWindow: boolean;
  /** Automatic retries of one run at most. */
  maxAttempts: number;
  /** A window resetting further away than this is not waited for (ms). */
  maxWaitMs: number;
  /** Up to this fraction of the wait is added at random, so runs blocked together do not resume together. */
  jitter: number;
}

export interface RunLogSettings extends LogBounds {
  /** An attempt's output is forgotten this long after its last line. */
  retentionMs: number;
}

export interface KeptRequestSettings {
  /** A body longer than this is recorded as too large to keep (SERVICE_DELIVERY_PAYLOAD_MAX_BYTES). */
  maxBodyBytes: number;
  /** A kept request is forgotten this long after it arrived (SERVICE_DELIVERY_PAYLOAD_RETENTION_DAYS). */
  retentionMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** What is wrong with the store's address, the public URL, the admin token and the seal keys. */
function addressAndKeyProblems(v: { databaseUrl: string; baseUrl: string; adminToken: string; sealKey: string; sealKeysRetired: string[] }): string[] {
  const problems: string[] = [];
  const is32Bytes = (key: string) => Buffer.from(key, "base64").length === 32;
  if (v.databaseUrl && !/^postgres(ql)?:\/\//.test(v.databaseUrl)) {
    problems.push("SERVICE_DATABASE_URL: must start with postgres:// (leave it unset for SQLite)");
  }
  if (!isHttpUrl(v.baseUrl)) problems.push("SERVICE_BASE_URL: must be an http(s) URL");
  if (v.adminToken && !/^iap_[A-Za-z0-9_-]{24,}$/.test(v.adminToken)) {
    problems.push("SERVICE_ADMIN_TOKEN: must be iap_ followed by at least 24 characters of [A-Za-z0-9_-]");
  }
  if (v.sealKey && !is32Bytes(v.sealKey)) problems.push("SERVICE_SEAL_KEY: must be base64 of exactly 32 bytes");
  if (v.databaseUrl && !v.sealKey) {
    problems.push(
      "SERVICE_SEAL_KEY: required with SERVICE_DATABASE_URL, so every replica seals and opens secrets with the same key (base64 of 32 bytes, e.g. `openssl rand -base64 32`)",
    );
  }
  if (!v.sealKeysRetired.every(is32Bytes)) problems.push("SERVICE_SEAL_KEYS_RETIRED: each key must be base64 of exactly 32 bytes");
  return problems;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const warnings: string[] = [];
  const read = new Reader(env, problems);
  const lenient = (name: string) => lenientOf(read, name, warnings);

  const host = read.string("SERVICE_HOST", "127.0.0.1");
  const port = read.integer("SERVICE_PORT", 8080, 0, 65535);
  const databaseUrl = read.string("SERVICE_DATABASE_URL", "");
  const baseUrl = read.string("SERVICE_BASE_URL", `http://${host.includes(":") ? `[${host}]` : host}:${port}`);
  const adminToken = read.string("SERVICE_ADMIN_TOKEN", "");
  const sealKey = read.string("SERVICE_SEAL_KEY", "");
  const sealKeysRetired = read
    .string("SERVICE_SEAL_KEYS_RETIRED", "")
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  problems.push(...addressAndKeyProblems({ databaseUrl, baseUrl, adminToken, sealKey, sealKeysRetired }));

  const config: Config = {
    host,
    port,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    dataDir: path.resolve(cwd, read.string("SERVICE_DATA_DIR", "data")),
    databaseUrl,
    sqliteSync: read.oneOf("SERVICE_SQLITE_SYNC", ["normal", "full"] as const, "normal"),
    sqliteWriterThread: read.oneOf("SERVICE_SQLITE_WRITER_THREAD", ["on", "off"] as const, "on") === "on",
    databasePoolSize: read.integer("SERVICE_DATABASE_POOL_SIZE", 10, 1, 200),
    adminToken,
    logLevel: read.oneOf("SERVICE_LOG_LEVEL", LOG_LEVELS, "info"),
    sealKey,
    sealKeysRetired,
    orgDefaults: {
      maxConcurrentRuns: Math.floor(lenient("SERVICE_ORG_DEFAULT_MAX_CONCURRENT_RUNS")),
      launchRatePerMin: Math.floor(lenient("SERVICE_ORG_DEFAULT_LAUNCH_RATE_PER_MIN")),
      monthlyCostCapMicroUsd: Math.round(lenient("SERVICE_ORG_DEFAULT_MONTHLY_COST_CAP_USD") * 1e6),
      monthlyRunQuota: Math.floor(lenient("SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA")),
    },
    retryDefaults: {
      usageWindow: read.oneOf("SERVICE_RETRY_USAGE_WINDOW", ["true", "false"] as const, "true") === "true",
      maxAttempts: read.integer("SERVICE_RETRY_MAX_ATTEMPTS", 3, 0, 100),
      maxWaitMs: read.duration("SERVICE_RETRY_MAX_WAIT", 6 * 3600_000),
      jitter: read.integer("SERVICE_RETRY_JITTER_PERCENT", 10, 0, 100) / 100,
    },
    webhookMonthlyCallsDefault: read.integer("SERVICE_WEBHOOK_MONTHLY_CALLS_DEFAULT", 10_000, 0),
    syncDebounceMs: read.duration("SERVICE_WEBHOOK_SYNC_DEBOUNCE", 3 * 60_000),
    syncMaxWaitMs: read.duration("SERVICE_WEBHOOK_SYNC_MAX_WAIT", 15 * 60_000),
    forgeRotationOverlapMs: read.duration("SERVICE_FORGE_ROTATION_OVERLAP", 5 * 60_000),
    configCacheTtlMs: read.duration("SERVICE_CONFIG_CACHE_TTL", 1000),
    runner: read.oneOf("SERVICE_RUNNER", ["inprocess", "none"] as const, "inprocess"),
    runnerConcurrency: read.integer("SERVICE_RUNNER_CONCURRENCY", 4, 1, 256),
    runnerSandbox: runnerSandboxOf(read, problems),
    runnerLeaseMs: read.duration("SERVICE_RUNNER_LEASE", 60_000),
    botsFile: path.resolve(cwd, read.string("SERVICE_BOTS_FILE", "bots/bots.json")),
    platformKeys: platformKeysOf(env, problems),
    forgeBotLogin: read.string("SERVICE_FORGE_BOT_LOGIN", ""),
    forgeAllowedNetworks: allowedNetworks(read.string("SERVICE_FORGE_ALLOWED_NETWORKS", ""), problems),
    trustProxy: parseTrustProxy(read.string("SERVICE_TRUST_PROXY", "false"), problems),
    http: {
      bodyBudgetBytes: read.integer("SERVICE_HTTP_BODY_BUDGET_MB", 64, 26, 65_536) * 1024 * 1024,
      headersTimeoutMs: read.duration("SERVICE_HTTP_HEADERS_TIMEOUT", 10_000),
      requestTimeoutMs: read.duration("SERVICE_HTTP_REQUEST_TIMEOUT", 30_000),
      keepAliveTimeoutMs: read.duration("SERVICE_HTTP_KEEPALIVE_TIMEOUT", 72_000),
      idleTimeoutMs: read.duration("SERVICE_HTTP_IDLE_TIMEOUT", 60_000),
      maxConnections: read.integer("SERVICE_HTTP_MAX_CONNECTIONS", 4096, 16, 1_000_000),
    },
    sessionTtlMs: read.duration("SERVICE_SESSION_TTL", 12 * 3600_000),
    apiRateLimitPerMin: read.integer("SERVICE_API_RATE_LIMIT", 1200, 0, 1_000_000),
    passwordMaxAgeMs: read.duration("SERVICE_PASSWORD_MAX_AGE", 0),
    runLogs: {
      headBytes: read.integer("SERVICE_RUN_LOG_HEAD_KB", 1024, 1, 1024 * 1024) * 1024,
      tailBytes: read.integer("SERVICE_RUN_LOG_TAIL_KB", 1024, 1, 1024 * 1024) * 1024,
      retentionMs: read.integer("SERVICE_RUN_LOG_RETENTION_DAYS", 30, 1, 36_500) * 86_400_000,
    },
    keptRequests: {
      maxBodyBytes: read.integer("SERVICE_DELIVERY_PAYLOAD_MAX_BYTES", 1024 * 1024, 0, 25 * 1024 * 1024),
      retentionMs: read.integer("SERVICE_DELIVERY_PAYLOAD_RETENTION_DAYS", 7, 1, 3650) * 86_400_000,
    },
    metricsToken: read.string("SERVICE_METRICS_TOKEN", ""),
    statusContextPrefix: read.string("SERVICE_STATUS_CONTEXT_PREFIX", "bot-gateway"),
    warnings,
  };
  if (!env.SERVICE_BASE_URL && (host === "0.0.0.0" || host === "::")) {
    warnings.push(
      `SERVICE_HOST=${host} without SERVICE_BASE_URL: delivery URLs name ${config.baseUrl}, which no forge can reach; set SERVICE_BASE_URL to the public address`,
    );
  }
  warnings.push(...unknownNames(env, read.known));
  for (const [name, ms] of [
    ["SERVICE_HTTP_HEADERS_TIMEOUT", config.http.headersTimeoutMs],
    ["SERVICE_HTTP_REQUEST_TIMEOUT", config.http.requestTimeoutMs],
  ] as const) {
    if (ms < 1000) problems.push(`${name}: must be at least 1s`);
  }
  if (config.runnerLeaseMs < 4000) problems.push("SERVICE_RUNNER_LEASE: must be at least 4s");
  if (config.sessionTtlMs < 60_000) problems.push("SERVICE_SESSION_TTL: must be at least 1m");
  if (config.http.requestTimeoutMs < config.http.headersTimeoutMs)
    problems.push("SERVICE_HTTP_REQUEST_TIMEOUT: must not be shorter than SERVICE_HTTP_HEADERS_TIMEOUT");
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** How a runner isolates each attempt's bot; every process that runs bots reads it the same way. */
export interface RunnerSandboxSettings {
  /** `auto` picks the strongest isolation the machine offers. */
  mode: "auto" | "bwrap" | "user" | "none";
  /** The unprivileged user bots run as when the runner runs as root (name, uid or uid:gid). */
  user: string;
  /** Each attempt's processes' resource limits, unless its bot's entry in the bots file says otherwise; undefined: the defaults. */
  limits?: ResourceLimits;
}

/** `SERVICE_RUNNER_SANDBOX=auto|bwrap|user|none` (auto), `SERVICE_RUNNER_USER` (nobody) and `SERVICE_RUNNER_LIMIT_*`. */
export function runnerSandboxOf(read: Reader, problems: string[]): RunnerSandboxSettings {
  const user = read.string("SERVICE_RUNNER_USER", "nobody");
  if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,31}$|^\d+(:\d+)?$/.test(user)) problems.push("SERVICE_RUNNER_USER: a user name, a uid or uid:gid");
  return { mode: read.oneOf("SERVICE_RUNNER_SANDBOX", ["auto", "bwrap", "user", "none"] as const, "auto"), user, limits: resourceLimitsOf(read, problems) };
}
