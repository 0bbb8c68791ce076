import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COOKIE } from "../../console/console-session.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

/** Collects a socket's JSON messages; `until` waits for one that matches. */
function messages(ws: WebSocket) {
  const got: any[] = [];
  const waiters: Array<() => void> = [];
  let closed: { code: number } | undefined;
  ws.on("message", (data) => {
    got.push(JSON.parse(String(data)));
    for (const w of waiters.splice(0)) w();
  });
  ws.on("close", (code) => {
    closed = { code };
    for (const w of waiters.splice(0)) w();
  });
  const until = async (match: (m: any) => boolean) => {
    for (;;) {
      const found = got.find(match);
      if (found) return found;
      if (closed) throw new Error(`closed (${closed.code}) before a matching message: ${JSON.stringify(got)}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const close = async () => {
    while (!closed) await new Promise<void>((r) => waiters.push(r));
    return closed.code;
  };
  return { got, until, close, send: (text: string) => ws.send(text) };
}

describe.each(storeKinds())("a run's live view on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  /** Opens the stream, listening from before the first message. */
  const open = async (url: string, headers: Record<string, string>) => {
    let m: ReturnType<typeof messages> | undefined;
    await t.app.injectWS(url, { headers }, { onInit: (ws) => (m = messages(ws)) });
    return m!;
  };
  const launch = async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    return (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id as string;
  };

  it("sends a member the run's state as it changes and its output as it is kept, then ends with the run", async () => {
    const id = await launch();
    const m = await open(`/api/runs/${id}/stream`, { authorization: `Bearer ${s.member.token}` });
    expect((await m.until((x) => x.type === "run")).run).toMatchObject({ id, status: "queued" });
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(id);
    await m.until((x) => x.type === "run" && x.run.status === "running");
    await t.services.runLogs.append(id, 1, [{ stream: "stdout", text: "thinking\n" }]);
    expect(await m.until((x) => x.type === "output")).toEqual({ type: "output", attempt: 1, stream: "stdout", text: "thinking\n" });
    await t.services.runLogs.append(id, 1, [{ stream: "stderr", text: "almost\n" }]);
    await t.services.runQueue.finish(claim, { status: "succeeded" });
    expect(await m.until((x) => x.type === "end")).toEqual({ type: "end", status: "succeeded", reason: "ended" });
    expect(await m.close()).toBe(1000);
    expect(m.got.filter((x) => x.type === "output").map((x) => x.text)).toEqual(["thinking\n", "almost\n"]);
    expect(m.got.at(-2)).toMatchObject({ type: "run", run: { status: "succeeded" } });
  });

  it("sends a run that already ended its whole output and ends at once", async () => {
    const id = await launch();
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    await t.services.runLogs.append(id, 1, [{ stream: "stdout", text: "all of it\n" }]);
    await t.services.runQueue.finish(claim, { status: "failed", failureCode: "BOT_FAILED" });
    const m = await open(`/api/runs/${id}/stream`, { authorization: `Bearer ${s.member.token}` });
    expect(await m.close()).toBe(1000);
    expect(m.got.map((x) => x.type)).toEqual(["run", "output", "end"]);
    expect(m.got[2]).toEqual({ type: "end", status: "failed", reason: "ended" });
  });

  it("stays open while the run waits for an answer, takes the answer as a message and follows the next attempt", async () => {
    const id = await launch();
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    const question = { text: "Which branch?", choices: ["main", "next"] };
    await t.services.runQueue.finish(claim, { status: "failed_resumable", failureCode: "QUESTION", detail: question.text, question });
    const m = await open(`/api/runs/${id}/stream`, { authorization: `Bearer ${s.member.token}` });
    expect((await m.until((x) => x.type === "run")).run).toMatchObject({ status: "failed_resumable", question, waiting_for_answer: true });
    m.send("not json");
    expect(await m.until((x) => x.type === "error")).toMatchObject({ error: "invalid_request" });
    m.send(JSON.stringify({ type: "answer", answer: "other" }));
    expect(await m.until((x) => x.type === "error" && x.field === "answer")).toMatchObject({ error: "invalid_request", field: "answer" });
    m.send(JSON.stringify({ type: "answer", answer: "next" }));
    expect((await m.until((x) => x.type === "answered")).run).toMatchObject({ status: "queued", attempt: 2, answer: "next" });
    m.send(JSON.stringify({ type: "answer", answer: "main" }));
    expect(await m.until((x) => x.type === "error" && x.error === "conflict")).toMatchObject({ detail: "the run is not waiting for an answer" });
    const next = (await t.services.runQueue.claim("w", 60_000))!;
    expect(next).toMatchObject({ attempt: 2 });
    await t.services.runLogs.append(id, 2, [{ stream: "stdout", text: "on next\n" }]);
    expect(await m.until((x) => x.type === "output")).toEqual({ type: "output", attempt: 2, stream: "stdout", text: "on next\n" });
    await t.services.runQueue.finish(next, { status: "succeeded" });
    expect(await m.until((x) => x.type === "end")).toEqual({ type: "end", status: "succeeded", reason: "ended" });
  });

  it("refuses the handshake without a token (401), and answers another team's member as if the run did not exist", async () => {
    const id = await launch();
    await expect(t.app.injectWS(`/api/runs/${id}/stream`)).rejects.toThrow(/401/);
    await expect(t.app.injectWS(`/api/runs/${id}/stream`, { headers: { authorization: `Bearer ${s.outsider.token}` } })).rejects.toThrow(/404/);
    // A run deleted while it is watched ends the view.
    const m = await open(`/api/runs/${id}/stream`, { authorization: `Bearer ${s.member.token}` });
    await m.until((x) => x.type === "run");
    expect((await s.teamAdmin.api.delete(`/api/runs/${id}`)).status).toBe(204);
    expect(await m.close()).toBe(1000);
    expect(m.got.at(-1)).toEqual({ type: "end", status: "deleted", reason: "gone" });
  });

  it("serves the console's session from the console's own origin only", async () => {
    const id = await launch();
    const cookie = `${COOKIE}=${encodeURIComponent(s.member.token)}`;
    const origin = new URL(t.config.baseUrl).origin;
    const m = await open(`/console/runs/${id}/stream`, { cookie, origin });
    expect((await m.until((x) => x.type === "run")).run).toMatchObject({ id, status: "queued" });
    await expect(t.app.injectWS(`/console/runs/${id}/stream`, { headers: { cookie, origin: "https://elsewhere.example" } })).rejects.toThrow(/403/);
    await expect(t.app.injectWS(`/console/runs/${id}/stream`, { headers: { origin } })).rejects.toThrow(/401/);
  });
});

describe("a run's live view over a real socket", () => {
  it("upgrades through the service's own server, refuses a handshake without a token, and lets the server close with views open", async () => {
    const t = await startTestApp("sqlite");
    const s = await seedTenancy(t);
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.app.server.address() as AddressInfo).port;
    const id = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/runs/${id}/stream`, { headers: { authorization: `Bearer ${s.member.token}` } });
    const first = await new Promise<string>((resolve, reject) => {
      ws.on("message", (d) => resolve(String(d)));
      ws.on("error", reject);
    });
    expect(JSON.parse(first)).toMatchObject({ type: "run", run: { id, status: "queued" } });
    const refused = new WebSocket(`ws://127.0.0.1:${port}/api/runs/${id}/stream`);
    const status = await new Promise<number>((resolve) =>
      refused.on("unexpected-response", (req, res) => {
        req.destroy();
        resolve(res.statusCode ?? 0);
      }),
    );
    expect(status).toBe(401);
    const closed = new Promise<void>((r) => ws.on("close", () => r()));
    // The close must not wait on the open view nor on the refused handshake's socket.
    await t.close();
    await closed;
  });
});
