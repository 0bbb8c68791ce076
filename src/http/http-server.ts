import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import type { HttpLimits } from "../config/config.js";
import { errorAnswer, type Answer } from "./error-handler.js";

/** Requests one connection may have unanswered at once; browsers and forges send one at a time. */
export const MAX_PIPELINED = 16;

/**
 * The node:http server every request arrives on, with the limits that keep any one caller from
 * holding the process: header, request and idle timeouts, a bound on open connections and on
 * the requests one connection may have in flight (a pipelining caller that never reads).
 */
export function createHttpServer(limits: HttpLimits, handle: (req: IncomingMessage, res: ServerResponse) => void): http.Server {
  const inFlight = new WeakMap<Socket, number>();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often the two timeouts above are checked (Node's default is 30 s).
      connectionsCheckingInterval: 1000,
    },
    (req, res) => {
      const socket = req.socket;
      const count = (inFlight.get(socket) ?? 0) + 1;
      if (count > MAX_PIPELINED) {
        socket.destroy();
        return;
      }
      inFlight.set(socket, count);
      res.once("close", () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
      handle(req, res);
    },
  );
  server.setTimeout(limits.idleTimeoutMs);
  server.maxConnections = limits.maxConnections;
  return server;
}

/** Node's parser errors as the one error body; a caller that went away is told nothing. */
export function answerClientError(log: FastifyBaseLogger) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const a = clientErrorAnswer(err.code);
    log.debug({ code: err.code }, "malformed request");
    if (socket.writable) {
      const body = JSON.stringify(a.body);
      socket.write(
        `HTTP/1.1 ${a.status} ${http.STATUS_CODES[a.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

function clientErrorAnswer(code: string | undefined): Answer {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return errorAnswer("request_timeout", "the request was not received in time");
    case "HPE_HEADER_OVERFLOW":
      return errorAnswer("headers_too_large", "the request's headers are too large");
    case "HPE_URI_TOO_LONG":
      return errorAnswer("uri_too_long", "the request's URL is too long");
    default:
      return errorAnswer("invalid_request", "the request is not valid HTTP");
  }
}
