import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("an attempt's output on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    // Small bounds so a test can pass them: the first 1 KiB and the last 1 KiB are kept.
    t = await startTestApp(kind, { SERVICE_RUN_LOG_HEAD_KB: "1", SERVICE_RUN_LOG_TAIL_KB: "1", SERVICE_RUN_LOG_RETENTION_DAYS: "7" });
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  /** A run of the seed's team, claimed: attempt 1 is running. */
  const claimedRun = async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const r = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" });
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(r.body.id);
    return claim;
  };
  /** The log read as text (the JSON client leaves an empty body undefined). */
  const logOf = async (api: Seed["member"]["api"], id: string, n = 1, offset?: number) => {
    const r = await api.call("GET", `/api/runs/${id}/attempts/${n}/log${offset === undefined ? "" : `?offset=${offset}`}`);
    return { ...r, body: r.body ?? "" };
  };

  it("answers a member the attempt's lines as plain text, resumable from the next offset, complete once the attempt ended", async () => {
    const claim = await claimedRun();
    const id = claim.run.id;
    const empty = await logOf(s.member.api, id);
    expect(empty.status).toBe(200);
    expect(empty.headers["content-type"]).toMatch(/^text\/plain/);
    expect(empty.body).toBe("");
    expect(empty.headers["x-log-next-offset"]).toBe("0");
    expect(empty.headers["x-log-complete"]).toBe("false");

    await t.services.runLogs.append(id, 1, [
      { stream: "stdout", text: "cloning\n" },
      { stream: "stderr", text: "warning: é\n" },
    ]);
    const first = await logOf(s.member.api, id);
    expect(first.body).toBe("cloning\nwarning: é\n");
    const next = Number(first.headers["x-log-next-offset"]);
    expect(next).toBe(Buffer.byteLength("cloning\nwarning: é\n"));

    await t.services.runLogs.append(id, 1, [{ stream: "stdout", text: "done\n" }]);
    const more = await logOf(s.member.api, id, 1, next);
    expect(more.body).toBe("done\n");
    expect(more.headers["x-log-complete"]).toBe("false");
    // An offset inside a line answers the rest of it.
    expect((await logOf(s.member.api, id, 1, 3)).body).toBe("ning\nwarning: é\ndone\n");

    await t.services.runQueue.finish(claim, { status: "succeeded" });
    const done = await logOf(s.member.api, id, 1, Number(more.headers["x-log-next-offset"]));
    expect(done.body).toBe("");
    expect(done.headers["x-log-complete"]).toBe("true");
    // Past the end reads from the end.
    expect((await logOf(s.member.api, id, 1, 10_000)).headers["x-log-next-offset"]).toBe(more.headers["x-log-next-offset"]);
  });

  it("keeps the head and the tail of a long output with a marker where the middle was dropped", async () => {
    const claim = await claimedRun();
    const id = claim.run.id;
    const line = (i: number) => `line ${String(i).padStart(4, "0")} ${"x".repeat(89)}\n`; // 100 bytes
    for (let i = 0; i < 50; i += 5) {
      await t.services.runLogs.append(
        id,
        1,
        [0, 1, 2, 3, 4].map((k) => ({ stream: "stdout" as const, text: line(i + k) })),
      );
    }
    const log = await logOf(s.member.api, id);
    const text = log.body as string;
    expect(text.startsWith(line(0))).toBe(true);
    expect(text).toContain(line(10)); // the head: the lines that start in the first 1,024 bytes
    expect(text).not.toContain(line(11));
    expect(text).toMatch(/\[… 2900 bytes of output not kept/);
    expect(text).not.toContain(line(39));
    expect(text).toContain(line(40));
    expect(text.endsWith(line(49))).toBe(true);
    expect(log.headers["x-log-next-offset"]).toBe("5000");
    // A reader that was in the dropped stretch is told so, and goes on from the tail.
    const lagging = await logOf(s.member.api, id, 1, 1500);
    expect(lagging.body).toMatch(/^\n\[… 2500 bytes of output not kept/);
    expect(lagging.body.endsWith(line(49))).toBe(true);
    const row = await t.store.db.selectFrom("run_logs").selectAll().where("run_id", "=", id).executeTakeFirstOrThrow();
    expect([Number(row.produced_bytes), Number(row.tail_bytes), Number(row.dropped_bytes)]).toEqual([5000, 1000, 2900]);
  });

  it("hides the output from other teams (404), refuses a bad offset (400) and an attempt never claimed (404)", async () => {
    const claim = await claimedRun();
    const id = claim.run.id;
    await t.services.runLogs.append(id, 1, [{ stream: "stdout", text: "secretless\n" }]);
    expect((await logOf(s.outsider.api, id)).body).toMatchObject({ error: "not_found" });
    expect((await logOf(s.outsider.api, id)).status).toBe(404);
    expect((await logOf(s.member.api, id, 2)).body).toMatchObject({ error: "not_found", detail: "attempt not found" });
    expect((await s.member.api.get(`/api/runs/${id}/attempts/1/log?offset=-1`)).status).toBe(400);
    expect((await s.member.api.get(`/api/runs/${id}/attempts/x/log`)).status).toBe(400);
    expect((await s.member.api.get(`/api/runs/run_nope/attempts/1/log`)).status).toBe(404);
    expect((await s.admin.get(`/api/runs/${id}/attempts/1/log`)).body).toBe("secretless\n");
  });

  it("forgets output past the retention period, and with its run", async () => {
    const claim = await claimedRun();
    const id = claim.run.id;
    await t.services.runLogs.append(id, 1, [{ stream: "stdout", text: "old\n" }]);
    expect(await t.services.runLogs.tick(t.clock.now() + 6 * 86_400_000)).toBe(0);
    expect((await logOf(s.member.api, id)).body).toBe("old\n");
    expect(await t.services.runLogs.tick(t.clock.now() + 8 * 86_400_000)).toBeGreaterThanOrEqual(1);
    expect((await logOf(s.member.api, id)).body).toBe("");

    const other = await claimedRun();
    await t.services.runLogs.append(other.run.id, 1, [{ stream: "stdout", text: "bye\n" }]);
    await t.services.runQueue.finish(other, { status: "succeeded" });
    expect((await s.teamAdmin.api.delete(`/api/runs/${other.run.id}`)).status).toBe(204);
    expect(await t.store.db.selectFrom("run_log_chunks").select("run_id").where("run_id", "=", other.run.id).execute()).toEqual([]);
    expect(await t.store.db.selectFrom("run_logs").select("run_id").where("run_id", "=", other.run.id).execute()).toEqual([]);
  });
});
