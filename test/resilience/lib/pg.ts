/** Throwaway PostgreSQL clusters (scripts/pg-cluster.sh) and direct store reads. */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { freePort, ROOT, tempDir } from "./proc.js";

const SCRIPT = path.join(ROOT, "scripts/pg-cluster.sh");

function pgBinDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const found = readdirSync(base)
    .map((v) => path.join(base, v, "bin"))
    .filter((d) => existsSync(path.join(d, "initdb")))
    .sort();
  return found.at(-1);
}

/** True when PostgreSQL binaries are installed (CI has them); only then do the PostgreSQL tests run. */
export const pgAvailable = (): boolean => pgBinDir() !== undefined;

export interface Cluster {
  url: string;
  port: number;
  dir: string;
  /** pg_ctl stop -m immediate: the server dies like a crash (connections cut at once). */
  crash(): Promise<void>;
  /** Starts it again on the same data dir. */
  start(): Promise<void>;
  stop(): void;
  /** A fresh database on the cluster; returns its URL. */
  createDatabase(name?: string): Promise<string>;
}

const asPg = (args: string[]) => (process.getuid?.() === 0 ? ["su", "postgres", "-s", "/bin/bash", "-c", args.map((a) => `'${a}'`).join(" ")] : args);

export async function startCluster(): Promise<Cluster> {
  const port = await freePort();
  const parent = tempDir("pg");
  chmodSync(parent, 0o755); // the postgres user must reach the cluster dir when we run as root
  const dir = path.join(parent, "cluster");
  const run = (...args: string[]) => execFileSync(SCRIPT, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).trim();
  const url = run("start", dir, String(port)).split("\n").at(-1)!;
  let dbs = 0;
  const cluster: Cluster = {
    url,
    port,
    dir,
    crash: async () => {
      const [cmd, ...args] = asPg([path.join(pgBinDir()!, "pg_ctl"), "-D", dir, "-m", "immediate", "-w", "stop"]);
      await promisify(execFile)(cmd!, args, { timeout: 30_000 });
    },
    start: async () => void (await promisify(execFile)(SCRIPT, ["start", dir, String(port)], { timeout: 60_000 })),
    stop: () => {
      try {
        run("stop", dir);
      } catch {
        // already down
      }
      rmSync(parent, { recursive: true, force: true });
    },
    createDatabase: async (name = `resil_${process.pid}_${++dbs}`) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`create database ${name}`);
      } finally {
        await c.end();
      }
      return url.replace(/\/[^/]*$/, `/${name}`);
    },
  };
  return cluster;
}

export interface Ack {
  deliveryId: string;
  runId: string;
}

/** Reads the store directly: which acknowledged deliveries (status launched, run row present) are missing. */
export async function findLost(store: { sqliteFile?: string; pgUrl?: string }, acks: Ack[]): Promise<Ack[]> {
  const lost: Ack[] = [];
  if (store.sqliteFile) {
    const db = new Database(store.sqliteFile, { readonly: true, fileMustExist: true });
    try {
      const d = db.prepare("select status, run_id from webhook_deliveries where id = ?");
      const r = db.prepare("select id from runs where id = ?");
      for (const a of acks) {
        const row = d.get(a.deliveryId) as { status: string; run_id: string | null } | undefined;
        if (row?.status !== "launched" || row.run_id !== a.runId || !r.get(a.runId)) lost.push(a);
      }
    } finally {
      db.close();
    }
    return lost;
  }
  const c = new pg.Client({ connectionString: store.pgUrl });
  await c.connect();
  try {
    for (let i = 0; i < acks.length; i += 500) {
      const chunk = acks.slice(i, i + 500);
      const rows = await c.query(
        `select d.id, d.status, d.run_id, r.id as run_row from webhook_deliveries d left join runs r on r.id = d.run_id where d.id = any($1)`,
        [chunk.map((a) => a.deliveryId)],
      );
      const byId = new Map(rows.rows.map((row) => [row.id as string, row]));
      for (const a of chunk) {
        const row = byId.get(a.deliveryId);
        if (row?.status !== "launched" || row.run_id !== a.runId || !row.run_row) lost.push(a);
      }
    }
  } finally {
    await c.end();
  }
  return lost;
}

/** One query's rows, read straight from the store: `$1`, `$2`… placeholders on both. */
async function queryStore<T>(store: { sqliteFile?: string; pgUrl?: string }, text: string, params: unknown[]): Promise<T[]> {
  if (store.sqliteFile) {
    const db = new Database(store.sqliteFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(text.replace(/\$\d+/g, "?")).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: store.pgUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Rows of `runs` launched by a webhook. */
export async function runsOfWebhook(store: { sqliteFile?: string; pgUrl?: string }, webhookId: string): Promise<string[]> {
  return (await queryStore<{ id: string }>(store, "select id from runs where webhook_id = $1", [webhookId])).map((r) => r.id);
}

/** A webhook's delivery rows, counted by status. */
export async function deliveryStatusCounts(store: { sqliteFile?: string; pgUrl?: string }, webhookId: string): Promise<Record<string, number>> {
  const rows = await queryStore<{ status: string; n: number | string }>(
    store,
    "select status, count(*) as n from webhook_deliveries where webhook_id = $1 group by status",
    [webhookId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
