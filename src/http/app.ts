import fastifySwagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyBaseLogger } from "fastify";
import type { RunnerIdentity } from "../runs/desk/runner-tokens.js";
import type { Principal } from "../tenancy/access.js";
import type { App, Services } from "./services.js";
import { installApiBodyBudget } from "./api-body-budget.js";
import { installAuth } from "./auth.js";
import { clientAddress, trustedProxies } from "./client-address.js";
import { deliveryFastPath } from "./delivery-fast-path.js";
import { answerClientError, createHttpServer } from "./http-server.js";
import { answerBody, answerFrameworkError, installErrorHandler } from "./error-handler.js";
import type { DeliveryReceiver } from "./receive-delivery.js";
import { describeRequestSpan, handleTraced } from "./request-span.js";
import { routeModules } from "./routes/index.js";
import { SHARED_SCHEMAS, TAGS, documentRoute } from "./routes/route-docs.js";
import { DELIVERY_ROUTE } from "./routes/webhook-delivery.js";
import { REQUEST_ID_HEADER, accessLogger, recordRequest, requestIdOf } from "./request-record.js";
import { validatorCompiler } from "./validator.js";
import fastifyCookie from "@fastify/cookie";
import { installApiRateLimit } from "./api-rate-limit.js";
import { PRODUCT } from "../core/product.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Reachable without a token (health, metrics, openapi, the delivery endpoint). */
    public?: boolean;
    /** Reachable by a session that must change its password first. */
    duringPasswordChange?: boolean;
    /** A runner protocol route: it takes a runner token (rnr_…), not a user's. */
    runner?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
    /** The runner behind the runner token, on runner protocol routes. */
    runner: RunnerIdentity;
  }
}

export interface AppOptions {
  logger: FastifyBaseLogger;
  /** Told of every route as it is registered (the route-walk test uses it). */
  onRoute?: (route: { method: string; url: string; public: boolean }) => void;
  /**
   * Told of every JSON answer of a documented route before it is serialized, with the response schema the document
   * gives its route and status (undefined when it gives none): the test harness checks each
   * answer a test receives against the document this way.
   */
  onAnswer?: (answer: { method: string; route: string; status: number; schema: unknown; payload: unknown }) => void;
}

/** The response schema a route documents for a status: the exact status, else its class (`4XX`). */
function documentedSchema(response: Record<string, unknown> | undefined, status: number): unknown {
  if (!response) return undefined;
  return response[String(status)] ?? response[`${String(status)[0]}XX`] ?? response.default;
}

/** A receiver that tells `seen` of each answer's status and body as they go on the wire (`answerBody`). */
function answersChecked(receive: DeliveryReceiver, seen: (status: number, payload: object) => void): DeliveryReceiver {
  return async (delivery) => {
    const answer = await receive(delivery);
    if (answer) seen(answer.status, answerBody(answer, delivery.requestId ?? ""));
    return answer;
  };
}

/** No body follows: no length (or 0) and no chunked transfer. */
function isBodiless(headers: Record<string, string | string[] | undefined>): boolean {
  return (headers["content-length"] === undefined || headers["content-length"] === "0") && headers["transfer-encoding"] === undefined;
}

/** Management bodies are small JSON documents. */
const API_BODY_LIMIT = 1024 * 1024;

export async function buildApp(services: Services, options: AppOptions): Promise<App> {
  let closing = false;
  // The delivery route's documented responses (routes/route-docs.ts), once it is registered.
  let deliveryResponses: Record<string, unknown> | undefined;
  const onAnswer = options.onAnswer;
  const fastPath = deliveryFastPath({
    // Under test, each answer the fast path is about to send is checked against the document as the
    // route's are; the service's own receiver is handed over as it is.
    receive: onAnswer
      ? answersChecked(services.receiveDelivery, (status, payload) =>
          onAnswer({ method: "POST", route: DELIVERY_ROUTE, status, schema: documentedSchema(deliveryResponses, status), payload }),
        )
      : services.receiveDelivery,
    log: options.logger,
    address: clientAddress(services.config.trustProxy),
    closing: () => closing,
    metrics: services.metrics,
  });
  const app = Fastify({
    // Forge deliveries first go to the fast path; whatever it does not take goes to Fastify.
    serverFactory: (handler) =>
      createHttpServer(services.config.http, (req, res) => {
        if (!fastPath(req, res)) handleTraced(req, res, handler);
      }),
    clientErrorHandler: answerClientError(options.logger),
    frameworkErrors: answerFrameworkError,
    loggerInstance: options.logger,
    // Fastify's own two lines per request are replaced by the one access line of the onResponse hook.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    genReqId: (req) => requestIdOf(req.headers[REQUEST_ID_HEADER]),
    bodyLimit: API_BODY_LIMIT,
    trustProxy: trustedProxies(services.config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: "idle",
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest("principal", undefined as unknown as Principal);
  app.decorateRequest("runner", undefined as unknown as RunnerIdentity);

  await app.register(fastifySwagger, {
    // Shared schemas appear under their own $id (ErrorBody, DenialEnvelope), not def-N.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Bot gateway API",
        version: PRODUCT.version,
        description:
          "Webhook intake, launch admission and metering for automated bot runs: orgs, teams and users; webhooks and their deliveries; runs, schedules, triggers and the board; credentials, usage, forge connections; runners and their protocol. Every error is `ErrorBody`; a launch refused by an admission gate is the `DenialEnvelope`. See docs/api.md.",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/", description: "This service" }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "iap_ personal access token or ses_ session token" },
          runner: { type: "http", scheme: "bearer", description: "rnr_ runner token (the runner protocol under /api/runner/v1)" },
        },
      },
      security: [{ bearer: [] }],
    },
  });

  // Cookies (the console's session) parsed by the library: a malformed header is no cookie, never a 500.
  await app.register(fastifyCookie);
  await installApiRateLimit(app, services.config.apiRateLimitPerMin);
  // Every answer: never sniffed into another type, and a Referer (and Origin) sent only to the service itself.
  app.addHook("onRequest", async (_req, reply) => {
    reply.header("x-content-type-options", "nosniff").header("referrer-policy", "same-origin");
  });

  // The console's pages and GET / are for browsers: the API's document leaves them out.
  app.addHook("onRoute", (r) => {
    if (r.url === "/" || r.url === "/console" || r.url.startsWith("/console/")) r.schema = { ...r.schema, hide: true };
  });
  // Each route's summary, operationId and response schemas (routes/route-docs.ts).
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.addHook("onRoute", documentRoute);
  app.addHook("onRoute", (r) => {
    if (r.url === DELIVERY_ROUTE) deliveryResponses = r.schema?.response as Record<string, unknown> | undefined;
  });

  const observe = options.onRoute;
  if (observe) {
    app.addHook("onRoute", (r) => {
      for (const method of ([] as string[]).concat(r.method)) {
        if (method !== "HEAD") observe({ method, url: r.url, public: r.config?.public === true });
      }
    });
  }
  installErrorHandler(app, () => services.metrics.httpAborted.inc({ route: "api" }));
  installAuth(app, services.authenticate, (token) => services.runnerTokens.authenticate(token));
  // The delivery route reads its own body, within the same budget (receive-delivery.ts).
  installApiBodyBudget(app, services.bodyBudget, API_BODY_LIMIT, (url) => url === DELIVERY_ROUTE);
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    // A DELETE sent with a JSON content type and no body (as many clients do) has nothing to parse.
    if (request.method === "DELETE" && isBodiless(request.headers)) delete request.headers["content-type"];
    done();
  });
  if (onAnswer) {
    app.addHook("preSerialization", async (request, reply, payload: unknown) => {
      const schema = request.routeOptions.schema;
      const response = schema?.response as Record<string, unknown> | undefined;
      // A route the document leaves out (the console, a stream) has no answers to check.
      if (!response || schema?.hide) return payload;
      const route = request.routeOptions.url ?? "unmatched";
      onAnswer({ method: request.method, route, status: reply.statusCode, schema: documentedSchema(response, reply.statusCode), payload });
      return payload;
    });
  }
  const access = accessLogger(options.logger);
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    recordRequest(access, services.metrics, {
      requestId: request.id,
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
    });
    describeRequestSpan(request.raw, { method: request.method, route, status: reply.statusCode, requestId: request.id });
    done();
  });

  for (const register of routeModules) await register(app, services);
  return app;
}
