import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killNine } from "./lib/kill-nine.js";
import { findLost, pgAvailable, startCluster } from "./lib/pg.js";
import { cleanupAll, freePort, ROOT, startService, tempDir, type Service } from "./lib/proc.js";
import { seedWideOpen } from "./lib/seed.js";

const SEED = Number(process.env.RESILIENCE_SEED ?? 20240901);

afterAll(cleanupAll);

/** Seeds a wide-open generic webhook, then streams deliveries while the service is killed -9 and restarted; every acknowledged one must be stored. */
async function keepsEveryAck(label: string, start: () => Promise<Service>, store: { sqliteFile?: string; pgUrl?: string }) {
  const first = await start();
  const { hook } = await seedWideOpen(first.base);
  await first.stop();
  const r = await killNine({ start, path: `/api/webhooks/generic/${hook.id}`, token: hook.token, durationMs: 18_000, kills: 5, clients: 32, seed: SEED });
  // After the last restart: every acknowledged delivery is a launched row with its run.
  const lost = await findLost(store, r.acks);
  await r.service.stop();
  console.log(`kill -9 ${label}: acknowledged ${r.acks.length}, lost ${lost.length}, kills ${r.kills} (answers ${JSON.stringify(r.statuses)}, seed ${SEED})`);
  if (lost.length) console.log("lost (first 5):", lost.slice(0, 5));
  if (r.other.length) console.log("non-launched answers (first 5):", r.other.slice(0, 5));
  expect(r.kills).toBeGreaterThanOrEqual(4);
  expect(r.acks.length).toBeGreaterThan(500);
  expect(lost).toEqual([]);
}

describe("kill -9 under load", () => {
  it("keeps every delivery it acknowledged (SQLite, real service)", async () => {
    const port = await freePort();
    const dataDir = tempDir("kill9");
    await keepsEveryAck("SQLite", () => startService({ port, dataDir }), { sqliteFile: path.join(dataDir, "service.db") });
  });

  it.skipIf(!pgAvailable())("keeps every delivery it acknowledged (PostgreSQL, real service)", async () => {
    const cluster = await startCluster();
    try {
      const databaseUrl = await cluster.createDatabase();
      const port = await freePort();
      const dataDir = tempDir("kill9-pg");
      await keepsEveryAck("PostgreSQL", () => startService({ port, dataDir, databaseUrl }), { pgUrl: databaseUrl });
    } finally {
      cluster.stop();
    }
  });

  it("negative control: a receiver that acknowledges before committing is caught losing deliveries", async () => {
    const port = await freePort();
    const dataDir = tempDir("kill9-control");
    const script = path.join(ROOT, "test/resilience/lib/ack-before-commit-server.mjs");
    const r = await killNine({
      start: () => startService({ port, dataDir, script }),
      path: "/api/webhooks/generic/whk_control",
      token: "wh_control",
      durationMs: 8_000,
      kills: 4,
      clients: 32,
      seed: SEED,
    });
    const lost = await findLost({ sqliteFile: path.join(dataDir, "service.db") }, r.acks);
    await r.service.stop();
    console.log(`kill -9 negative control (ack before commit): acknowledged ${r.acks.length}, lost ${lost.length}, kills ${r.kills}`);
    expect(r.acks.length).toBeGreaterThan(500);
    expect(lost.length).toBeGreaterThan(0);
  });
});
