import type { FastifyInstance } from "fastify";
import { ServiceError } from "../core/errors.js";
import type { BodyBudget } from "./body-budget.js";

/**
 * Management bodies count against the same budget as deliveries: the declared length, or the
 * body limit for a chunked body, is taken before the body is read and given back with the answer.
 * Runs after authentication, so an anonymous caller never gets this far.
 */
export function installApiBodyBudget(app: FastifyInstance, budget: BodyBudget, bodyLimit: number, skip: (url: string | undefined) => boolean): void {
  app.addHook("preParsing", async (request, reply, payload) => {
    if (skip(request.routeOptions.url)) return payload;
    const length = request.headers["content-length"];
    const chunked = request.headers["transfer-encoding"] !== undefined;
    const declared = chunked ? bodyLimit : Number(length ?? 0);
    // Over the limit: the body parser refuses it (413) without reading it.
    if (!(declared > 0 && declared <= bodyLimit)) return payload;
    if (!budget.take(declared)) {
      reply.header("connection", "close");
      throw new ServiceError("server_busy", "too many request bodies are being read at once; try again", undefined, 1);
    }
    reply.raw.once("close", () => budget.give(declared));
    return payload;
  });
}
