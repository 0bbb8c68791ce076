import fastifySwagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Store } from "../store/store.js";
import type { Principal } from "../tenancy/access.js";
import type { AccessTokens } from "../tenancy/tokens.js";
import type { TenancyService } from "../tenancy/tenancy-service.js";
import type { BotCatalog } from "../bots/bot-catalog.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import type { DeliveryTargets } from "../intake/delivery-targets.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import type { Launcher } from "../admission/launcher.js";
import type { UsageViews } from "../metering/usage-views.js";
import type { BotCommands } from "../runs/runner/bot-commands.js";
import type { Runs } from "../runs/runs.js";
import type { RunsApi } from "../runs/runs-api.js";
import type { ParkedLaunches } from "../intake/parked-launches.js";
import type { DeliveryIntake } from "../intake/delivery-intake.js";
import type { BodyBudget } from "./body-budget.js";
import type { DeliveryReceiver } from "./receive-delivery.js";
import { installApiBodyBudget } from "./api-body-budget.js";
import { installAuth } from "./auth.js";
import { clientAddress, trustedProxies } from "./client-address.js";
import { deliveryFastPath } from "./delivery-fast-path.js";
import { answerClientError, createHttpServer } from "./http-server.js";
import { answerFrameworkError, installErrorHandler } from "./error-handler.js";
import { routeModules } from "./routes/index.js";
import { DELIVERY_ROUTE } from "./routes/webhook-delivery.js";
import { validatorCompiler } from "./validator.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Reachable without a token (health, metrics, openapi, the delivery endpoint). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

/** Everything the routes call: capabilities built once in the composition root. */
export interface Services {
  config: Config;
  store: Store;
  metrics: Metrics;
  tokens: AccessTokens;
  tenancy: TenancyService;
  webhooks: WebhookService;
  /** Webhook configurations as the delivery path reads them (cached per process). */
  targets: DeliveryTargets;
  credentials: CredentialStore;
  bots: BotCatalog;
  /** The launch gate and its transaction; the webhook intake launches through it. */
  launcher: Launcher;
  /** The run queue as runners see it (claim, heartbeat, finish, stopBySubject, reclaim). */
  runQueue: Runs;
  /** The reference runner's bots file. */
  botCommands: BotCommands;
  runs: RunsApi;
  usage: UsageViews;
  /** The webhook delivery endpoint. */
  intake: DeliveryIntake;
  /** Synchronize launches parked for the debounce; main.ts sweeps them. */
  parked: ParkedLaunches;
  /** Request body bytes the process holds at once, in all. */
  bodyBudget: BodyBudget;
  /** The delivery endpoint, for the route and the fast path alike. */
  receiveDelivery: DeliveryReceiver;
}

export type App = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AppOptions {
  logger: FastifyBaseLogger;
  /** Told of every route as it is registered (the route-walk test uses it). */
  onRoute?: (route: { method: string; url: string; public: boolean }) => void;
}

/** Management bodies are small JSON documents. */
const API_BODY_LIMIT = 1024 * 1024;

export async function buildApp(services: Services, options: AppOptions): Promise<App> {
  let closing = false;
  const fastPath = deliveryFastPath({
    receive: services.receiveDelivery, log: options.logger, address: clientAddress(services.config.trustProxy), closing: () => closing,
  });
  const app = Fastify({
    // Forge deliveries first go to the fast path; whatever it does not take goes to Fastify.
    serverFactory: (handler) =>
      createHttpServer(services.config.http, (req, res) => {
        if (!fastPath(req, res)) handler(req, res);
      }),
    clientErrorHandler: answerClientError(options.logger),
    frameworkErrors: answerFrameworkError,
    loggerInstance: options.logger,
    // Per-request access lines cost the delivery path; failures are logged by the hooks below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: API_BODY_LIMIT,
    trustProxy: trustedProxies(services.config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: "idle",
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest("principal", undefined as unknown as Principal);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Bot gateway API", version: "0.15.0" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "iap_ personal access token" } } },
      security: [{ bearer: [] }],
    },
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
  installAuth(app, services.tokens);
  // The delivery route reads its own body, within the same budget (receive-delivery.ts).
  installApiBodyBudget(app, services.bodyBudget, API_BODY_LIMIT, (url) => url === DELIVERY_ROUTE);
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onResponse", async (request, reply) => {
    if (reply.statusCode >= 500) {
      request.log.warn({ method: request.method, route: request.routeOptions.url, status: reply.statusCode }, "request failed");
    }
  });

  for (const register of routeModules) await register(app, services);
  return app;
}
