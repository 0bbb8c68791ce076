import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import websocket from "@fastify/websocket";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import { sameOrigin, tokenOf } from "../../console/console-session.js";
import { followRun } from "../../runs/run-stream.js";
import type { Principal } from "../../tenancy/access.js";
import { ServiceError } from "../../core/errors.js";
import { sendError } from "../error-handler.js";
import { denialAnswer } from "../send-denial.js";
import type { App, Services } from "../services.js";

/** A client sends little (an answer); more than this in one message closes the socket. */
const MAX_MESSAGE = 64 * 1024;

/**
 * A run's live view over a WebSocket: `/api/runs/{id}/stream` with a bearer token, and the same
 * at `/console/runs/{id}/stream` for the console's pages (its cookie is sent only under
 * /console; the page's own origin is required, so another site cannot open it). JSON messages:
 * `run` (its state, whenever it changes), `output` (lines as they are kept), `end`; then the
 * socket closes with 1000.
 */
export async function registerRunStreamRoutes(app: App, s: Services): Promise<void> {
  await app.register(websocket, { options: { maxPayload: MAX_MESSAGE } });
  // An upgrade's socket (a live view, or a handshake refused with 401/404) is the server's to end,
  // else the server's close waits for it: at shutdown they are cut (a client reconnects elsewhere).
  const upgraded = new Set<Duplex>();
  app.server.on("upgrade", (_req: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    // A client that hangs up on a refused handshake is hung up on too (the server keeps halves open).
    socket.once("end", () => socket.end());
    socket.once("close", () => upgraded.delete(socket));
  });
  app.addHook("preClose", (done) => {
    for (const socket of upgraded) socket.destroy();
    done();
  });
  const follow = (principal: Principal, socket: WebSocket, req: FastifyRequest) => {
    const runId = (req.params as { id: string }).id;
    const stop = new AbortController();
    socket.on("close", () => stop.abort());
    socket.on("message", (data) => {
      answerOver(principal, runId, String(data)).then(
        (reply) => socket.send(JSON.stringify(reply)),
        (err: unknown) => {
          req.log.warn({ err, runId }, "answer over the run stream failed");
          socket.send(JSON.stringify({ type: "error", error: "internal", detail: "the answer could not be taken; try again" }));
        },
      );
    });
    followRun({ runs: s.runs, logs: s.runLogs }, principal, runId, (event) => socket.send(JSON.stringify(event)), stop.signal)
      .then(() => socket.close(1000, "run ended"))
      .catch((err: unknown) => {
        req.log.warn({ err, runId }, "run stream failed");
        socket.close(1011, "internal error");
      });
  };
  // A run the caller may not see is 404 at the handshake, as on every run route.
  const visible = async (req: FastifyRequest) => {
    await s.runs.get(req.principal, (req.params as { id: string }).id);
  };
  /** `{"type": "answer", "answer": "…"}`, as POST /api/runs/{id}/answer: `answered` with the run, or `error` with the API's body. */
  const answerOver = async (principal: Principal, runId: string, text: string): Promise<Record<string, unknown>> => {
    let message: { type?: unknown; answer?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return { type: "error", error: "invalid_request", detail: 'a message is JSON: {"type": "answer", "answer": "…"}' };
    }
    if (message?.type !== "answer" || typeof message.answer !== "string" || message.answer.length === 0 || message.answer.length > 4000) {
      return { type: "error", error: "invalid_request", detail: 'a message is {"type": "answer", "answer": "…"} with 1 to 4000 characters', field: "answer" };
    }
    try {
      const result = await s.runs.answer(principal, runId, message.answer);
      if (result.kind === "denied") return { type: "error", ...denialAnswer(result.denial).body };
      return { type: "answered", run: result.run };
    } catch (err) {
      if (err instanceof ServiceError) return { type: "error", error: err.code, detail: err.message, ...(err.field && { field: err.field }) };
      throw err;
    }
  };
  app.get("/api/runs/:id/stream", { websocket: true, schema: { tags: ["runs"] }, preValidation: visible }, (socket, req) => follow(req.principal, socket, req));
  // The handshake is refused (401, 403) before the upgrade, as the API refuses a request.
  const consoleSession = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!sameOrigin(req, s.config.baseUrl)) return sendError(reply, "forbidden", "open the stream from the console's own pages");
    const token = tokenOf(req);
    const principal = token ? await s.authenticate(token) : undefined;
    if (!principal || principal.passwordChangeRequired) return sendError(reply, "unauthenticated", "sign in to the console first");
    req.principal = principal;
    await visible(req);
  };
  app.get("/console/runs/:id/stream", { websocket: true, config: { public: true }, preValidation: consoleSession }, (socket, req) =>
    follow(req.principal, socket, req),
  );
}
