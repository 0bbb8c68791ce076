import type { StatusReporter } from "../reporting/status-reporter.js";
import type { QuestionReplies } from "../reporting/question-replies.js";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Store } from "../store/store.js";
import type { AccessTokens } from "../tenancy/tokens.js";
import type { TenancyService } from "../tenancy/tenancy-service.js";
import type { Principal } from "../tenancy/access.js";
import type { Passwords } from "../tenancy/passwords.js";
import type { Sessions } from "../tenancy/sessions.js";
import type { SignIn } from "../tenancy/sign-in.js";
import type { BotCatalog } from "../bots/bot-catalog.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import type { RunCredentials } from "../credentials/run-credentials.js";
import type { DeliveryTargets } from "../intake/delivery-targets.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import type { DeliveryLog } from "../deliveries/delivery-log.js";
import type { RequestKeeper } from "../deliveries/request-keeper.js";
import type { Redeliveries } from "../deliveries/redeliver.js";
import type { Pings } from "../deliveries/ping.js";
import type { Launcher } from "../admission/launcher.js";
import type { UsageViews } from "../metering/usage-views.js";
import type { BotCommands } from "../runs/runner/bot-commands.js";
import type { Runs } from "../runs/runs.js";
import type { RunsApi } from "../runs/runs-api.js";
import type { RunnerDesk } from "../runs/desk/runner-desk.js";
import type { RunnerTokens } from "../runs/desk/runner-tokens.js";
import type { RunLogs } from "../runs/run-logs.js";
import type { PreviousSecretSweep } from "../webhooks/previous-secret-sweep.js";
import type { ParkedLaunches } from "../intake/parked-launches.js";
import type { DeliveryIntake } from "../intake/delivery-intake.js";
import type { BodyBudget } from "./body-budget.js";
import type { RetrySweeper } from "../runs/retry-sweeper.js";
import type { BoardDispatcher } from "../surfaces/board-dispatcher.js";
import type { BoardService } from "../surfaces/board-service.js";
import type { ScheduleService } from "../surfaces/schedule-service.js";
import type { Scheduler } from "../surfaces/scheduler.js";
import type { TriggerService } from "../surfaces/trigger-service.js";
import type { DeliveryReceiver } from "./receive-delivery.js";
import type { ConnectionService } from "../connections/connection-service.js";
import type { ProvisionService } from "../connections/provision-service.js";
import type { SecurityRead } from "../connections/security-read.js";
import type { TokenRevocations } from "../connections/token-revocations.js";
import type { RepoBotHealth } from "../connections/repo-bot-health.js";
import type { RepoBots } from "../connections/repo-bots.js";

/** Everything the routes call: capabilities built once in the composition root. */
export interface Services {
  config: Config;
  clock: Clock;
  store: Store;
  metrics: Metrics;
  tokens: AccessTokens;
  /** The principal behind a bearer token: a personal access token or a session. */
  authenticate: (token: string) => Promise<Principal | undefined>;
  sessions: Sessions;
  signIn: SignIn;
  passwords: Passwords;
  tenancy: TenancyService;
  webhooks: WebhookService;
  /** A webhook's delivery log: pages, one delivery opened. */
  deliveries: DeliveryLog;
  /** Deliveries' requests kept for webhooks that ask; main.ts starts its retention sweep. */
  keptRequests: RequestKeeper;
  /** A kept request sent again through the pipeline. */
  redeliveries: Redeliveries;
  /** A signed test delivery through the delivery endpoint. */
  pings: Pings;
  /** A team's forge connections, and the repositories provisioned through them. */
  connections: ConnectionService;
  provisioning: ProvisionService;
  repoBots: RepoBots;
  /** Provisioned repositories' security-read org tokens; main.ts starts their renewal sweep. */
  securityRead: SecurityRead;
  tokenRevocations: TokenRevocations;
  /** A provisioned repository's hook read back and judged, and its repair. */
  repoBotHealth: RepoBotHealth;
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
  /** The keys and secrets each attempt is handed at spawn. */
  runCredentials: RunCredentials;
  /** The service's side of the runner protocol: the in-process runner and the /api/runner/v1 routes call it. */
  runnerDesk: RunnerDesk;
  /** Runner tokens of the platform's pool and of orgs' pools. */
  runnerTokens: RunnerTokens;
  runs: RunsApi;
  runLogs: RunLogs;
  /** Forgets rotated webhooks' previous secrets once their overlap has ended. */
  previousSecrets: PreviousSecretSweep;
  usage: UsageViews;
  /** The webhook delivery endpoint. */
  intake: DeliveryIntake;
  /** Synchronize launches parked for the debounce; main.ts sweeps them. */
  parked: ParkedLaunches;
  /** Resumes runs whose usage-window retry is due; main.ts starts it. */
  retries: RetrySweeper;
  statusReports: StatusReporter;
  questionReplies: QuestionReplies;
  /** A team's cron schedules; main.ts starts the scheduler that launches them. */
  schedules: ScheduleService;
  scheduler: Scheduler;
  /** Custom-event trigger subscriptions and the emit. */
  triggers: TriggerService;
  /** Team boards; main.ts starts the dispatcher that launches their ready cards. */
  board: BoardService;
  boardDispatcher: BoardDispatcher;
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
