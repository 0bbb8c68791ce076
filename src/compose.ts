import type { Config } from "./config/config.js";
import type { Clock } from "./core/clock.js";
import type { IdGenerator } from "./core/ids.js";
import type { Sealer } from "./core/sealer.js";
import type { Services } from "./http/services.js";
import type { Metrics } from "./metrics/metrics.js";
import type { Store } from "./store/store.js";
import { Access } from "./tenancy/access.js";
import { AuditLog } from "./tenancy/audit.js";
import { TenancyService } from "./tenancy/tenancy-service.js";
import { AccessTokens } from "./tenancy/tokens.js";
import { AddressThrottle } from "./tenancy/address-throttle.js";
import { Passwords } from "./tenancy/passwords.js";
import { Sessions } from "./tenancy/sessions.js";
import { Bearers } from "./tenancy/bearer.js";
import { SignIn } from "./tenancy/sign-in.js";
import { SIGN_IN_POLICY } from "./tenancy/sign-in-policy.js";
import { Launcher } from "./admission/launcher.js";
import { Metering } from "./metering/metering.js";
import { UsageViews } from "./metering/usage-views.js";
import { BotCommands } from "./runs/runner/bot-commands.js";
import { Runs } from "./runs/runs.js";
import { RunsApi } from "./runs/runs-api.js";
import { RunnerDesk } from "./runs/desk/runner-desk.js";
import { RunnerTokens } from "./runs/desk/runner-tokens.js";
import { RunLogs } from "./runs/run-logs.js";
import { PreviousSecretSweep } from "./webhooks/previous-secret-sweep.js";
import { BotCatalog } from "./bots/bot-catalog.js";
import { CredentialStore } from "./credentials/credential-store.js";
import { platformKeysOf } from "./credentials/platform-keys.js";
import { RunCredentials } from "./credentials/run-credentials.js";
import { RunForgeTokens } from "./connections/run-forge-tokens.js";
import { WebhookService } from "./webhooks/webhook-service.js";
import { DeliveryLog } from "./deliveries/delivery-log.js";
import { RequestKeeper } from "./deliveries/request-keeper.js";
import { Redeliveries } from "./deliveries/redeliver.js";
import { Pings } from "./deliveries/ping.js";
import { postDelivery } from "./deliveries/post-delivery.js";
import { traceHeaders } from "./core/tracing.js";
import { DeliveryIntake } from "./intake/delivery-intake.js";
import { DeliveryTargets } from "./intake/delivery-targets.js";
import { BodyBatch } from "./intake/pipeline/body-batch.js";
import { IssueCards } from "./intake/issue-cards.js";
import { ParkedLaunches } from "./intake/parked-launches.js";
import { RetrySweeper } from "./runs/retry-sweeper.js";
import { StatusReporter } from "./reporting/status-reporter.js";
import { QuestionReplies } from "./reporting/question-replies.js";
import { BoardDispatcher } from "./surfaces/board-dispatcher.js";
import { BoardService } from "./surfaces/board-service.js";
import { ScheduleService } from "./surfaces/schedule-service.js";
import { Scheduler } from "./surfaces/scheduler.js";
import { TriggerService } from "./surfaces/trigger-service.js";
import { ChangeFeed } from "./core/change-feed.js";
import { BodyBudget } from "./http/body-budget.js";
import { deliveryReceiver } from "./http/receive-delivery.js";
import { BoundedWork } from "./core/bounded-work.js";
import { ForgeNetwork } from "./forges/shared/forge-network.js";
import { NetworkPolicy } from "./core/network-policy.js";
import { ForgeClients } from "./forges/forge-clients.js";
import { ForgeStep } from "./intake/lanes/forge/forge-step.js";
import { WebhookForges } from "./intake/lanes/forge/webhook-forge.js";
import { OverlapStep } from "./intake/pipeline/overlap.js";
import { ConnectionService } from "./connections/connection-service.js";
import { ProvisionService } from "./connections/provision-service.js";
import { RepoBotHealth } from "./connections/repo-bot-health.js";
import { RepoBots } from "./connections/repo-bots.js";
import { InstallationTokens } from "./connections/installation-tokens.js";
import { SecurityRead } from "./connections/security-read.js";
import { TokenRevocations } from "./connections/token-revocations.js";

export interface Infrastructure {
  config: Config;
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  sealer: Sealer;
  log: import("pino").Logger;
}

/** Builds every capability once, from the infrastructure; shared by main.ts and the tests. */
export function composeServices(infra: Infrastructure): Services {
  const { store, clock, ids } = infra;
  const access = new Access(store);
  const changes = new ChangeFeed();
  const audit = new AuditLog({ clock, ids });
  const tokens = new AccessTokens({ store, clock, ids, access, audit });
  const sessions = new Sessions({ store, clock, ids, access, audit, ttlMs: infra.config.sessionTtlMs });
  const throttle = new AddressThrottle(store, clock, SIGN_IN_POLICY.addressMaxFailures, SIGN_IN_POLICY.addressWindowMs);
  // libuv runs 4 hashes at once; a few more wait behind them, and a flood beyond is answered 503 at once.
  const hashing = new BoundedWork(SIGN_IN_POLICY.hashingRunning, SIGN_IN_POLICY.hashingWaiting);
  const signIn = new SignIn({ store, clock, metrics: infra.metrics, sessions, throttle, hashing, passwordMaxAgeMs: infra.config.passwordMaxAgeMs });
  const passwords = new Passwords({ store, clock, ids, access, audit, metrics: infra.metrics, hashing });
  const bearers = new Bearers({ store, clock });
  const authenticate = (token: string) => bearers.authenticate(token);
  const tenancy = new TenancyService({ store, clock, ids, access, audit, changes });
  const bots = new BotCatalog({ store, clock, access, audit });
  const credentials = new CredentialStore({ store, clock, ids, sealer: infra.sealer, access, audit });
  const webhooks = new WebhookService({
    store,
    clock,
    ids,
    sealer: infra.sealer,
    access,
    audit,
    bots,
    credentials,
    log: infra.log,
    baseUrl: infra.config.baseUrl,
    changes,
  });
  // One set of forge clients for the process: the permission cache is shared by every lane and connection.
  const forgeLog = infra.log.child({ component: "forge" });
  const forgeClients = new ForgeClients({
    clock,
    network: new ForgeNetwork(new NetworkPolicy(infra.config.forgeAllowedNetworks)),
    log: {
      debug: (m) => forgeLog.debug(m),
      info: (m) => forgeLog.info(m),
      // The libraries' lines repeat every retry of a tenant's failing call: kept for debugging only; our own code logs the failure once.
      warn: (m) => forgeLog.debug(m),
      error: (m) => forgeLog.debug(m),
    },
  });
  const installationTokens = new InstallationTokens(clock);
  const connections = new ConnectionService({ store, clock, ids, sealer: infra.sealer, access, audit, forgeClients, installationTokens, log: infra.log });
  const tokenRevocations = new TokenRevocations({
    store,
    clock,
    sealer: infra.sealer,
    connections,
    metrics: infra.metrics,
    log: infra.log.child({ component: "token-revocations" }),
  });
  const securityRead = new SecurityRead({
    store,
    clock,
    ids,
    sealer: infra.sealer,
    credentials,
    audit,
    webhooks,
    connections,
    metrics: infra.metrics,
    log: infra.log.child({ component: "security-read" }),
  });
  const forgeWiring = { store, access, audit, connections, securityRead, changes, baseUrl: infra.config.baseUrl };
  const provisioning = new ProvisionService({
    ...forgeWiring,
    clock,
    ids,
    sealer: infra.sealer,
    webhooks,
    rotationOverlapMs: infra.config.forgeRotationOverlapMs,
  });
  const repoBots = new RepoBots(forgeWiring);
  const repoBotHealth = new RepoBotHealth({ store, clock, access, connections, provisioning, metrics: infra.metrics });
  const metering = new Metering({ store, clock, log: infra.log });
  const launcher = new Launcher({ store, clock, ids, metrics: infra.metrics, log: infra.log, defaults: infra.config.orgDefaults });
  const runQueue = new Runs({
    store,
    clock,
    ids,
    metrics: infra.metrics,
    log: infra.log,
    metering,
    retryDefaults: infra.config.retryDefaults,
    attemptEnded: () => tokenRevocations.attemptEnded(),
  });
  const botCommands = new BotCommands(infra.config.botsFile);
  const runCredentials = new RunCredentials({
    store,
    sealer: infra.sealer,
    clock,
    platformKeys: platformKeysOf(infra.config.platformKeys),
    forgeTokens: new RunForgeTokens({ store, sealer: infra.sealer, forgeClients }),
  });
  const runLogs = new RunLogs({ store, clock, access, settings: infra.config.runLogs, log: infra.log.child({ component: "run-logs" }) });
  const previousSecrets = new PreviousSecretSweep({ store, clock, log: infra.log.child({ component: "previous-secret-sweep" }) });
  const runnerDesk = new RunnerDesk({
    runs: runQueue,
    bots: botCommands,
    credentials: runCredentials,
    store,
    clock,
    metrics: infra.metrics,
    log: infra.log.child({ component: "runner-desk" }),
    output: runLogs,
    leaseMs: infra.config.runnerLeaseMs,
  });
  const runnerTokens = new RunnerTokens({ store, clock, ids, access, audit, connectedWithinMs: runnerDesk.leaseMs });
  infra.metrics.observeRunners(async () => {
    const counts = await runnerTokens.connected();
    return { ...counts, platform: (counts.platform ?? 0) + (runnerDesk.inProcessConnected() ? 1 : 0) };
  });
  const runs = new RunsApi({ store, clock, access, launcher, runs: runQueue, bots, metrics: infra.metrics });
  const usage = new UsageViews({ store, clock, access, defaults: infra.config.orgDefaults });
  const targets = new DeliveryTargets({
    store,
    sealer: infra.sealer,
    clock,
    changes,
    ttlMs: infra.config.configCacheTtlMs,
    botLogins: infra.config.forgeBotLogin ? [infra.config.forgeBotLogin] : [],
  });
  const bodies = new BodyBatch();
  const overlap = new OverlapStep({ store });
  const parked = new ParkedLaunches({
    store,
    clock,
    ids,
    launcher,
    targets,
    overlap,
    runs: runQueue,
    metrics: infra.metrics,
    log: infra.log.child({ component: "parked-launches" }),
    quietMs: infra.config.syncDebounceMs,
    maxWaitMs: infra.config.syncMaxWaitMs,
  });
  const webhookForges = new WebhookForges({ clients: forgeClients, credentials, connections });
  const forge = new ForgeStep({ forges: webhookForges, log: forgeLog });
  const statusReports = new StatusReporter({
    store,
    clock,
    forges: webhookForges,
    metrics: infra.metrics,
    log: infra.log.child({ component: "forge-status" }),
    baseUrl: infra.config.baseUrl,
    contextPrefix: infra.config.statusContextPrefix,
  });
  const questionReplies = new QuestionReplies({
    store,
    clock,
    forges: webhookForges,
    log: infra.log.child({ component: "question-replies" }),
    baseUrl: infra.config.baseUrl,
  });
  const cards = new IssueCards({ store, clock, ids, launcher });
  const intake = new DeliveryIntake({
    cards,
    store,
    clock,
    ids,
    metrics: infra.metrics,
    log: infra.log,
    launcher,
    runs: runQueue,
    bots,
    targets,
    bodies,
    parked,
    monthlyCallsDefault: infra.config.webhookMonthlyCallsDefault,
    syncDebounceMs: infra.config.syncDebounceMs,
    forge,
    overlap,
  });
  const retries = new RetrySweeper({ store, clock, launcher, metrics: infra.metrics, log: infra.log.child({ component: "retry-sweeper" }) });
  const schedules = new ScheduleService({ store, clock, ids, access, audit, bots });
  const scheduler = new Scheduler({ store, clock, launcher, log: infra.log.child({ component: "scheduler" }) });
  const board = new BoardService({ store, clock, ids, access, bots });
  const boardDispatcher = new BoardDispatcher({ store, clock, launcher, log: infra.log.child({ component: "board-dispatcher" }) });
  const triggers = new TriggerService({ store, clock, ids, access, audit, bots, launcher });
  const bodyBudget = new BodyBudget(infra.config.http.bodyBudgetBytes, (held) => infra.metrics.httpBodyBytes.set(held));
  const keptRequests = new RequestKeeper({
    store,
    clock,
    ids,
    sealer: infra.sealer,
    settings: infra.config.keptRequests,
    log: infra.log.child({ component: "kept-requests" }),
  });
  const deliveries = new DeliveryLog({ store, access, keptRequests });
  const redeliveries = new Redeliveries({ store, clock, audit, log: deliveries, keptRequests, targets, intake });
  const receiveDelivery = deliveryReceiver({ intake, budget: bodyBudget, metrics: infra.metrics, log: infra.log, keeper: keptRequests });
  const pings = new Pings({
    clock,
    log: deliveries,
    targets,
    baseUrl: infra.config.baseUrl,
    // GitHub gives up on a delivery after 10 s; a test delivery waits no longer.
    // It carries the ping request's trace context (when traced): its delivery is that request's child.
    send: (url, headers, body) => postDelivery(url, { ...headers, ...traceHeaders() }, body, 10_000),
  });
  return {
    config: infra.config,
    clock,
    store,
    metrics: infra.metrics,
    tokens,
    authenticate,
    sessions,
    signIn,
    passwords,
    tenancy,
    webhooks,
    deliveries,
    keptRequests,
    redeliveries,
    pings,
    connections,
    provisioning,
    repoBots,
    securityRead,
    tokenRevocations,
    repoBotHealth,
    targets,
    credentials,
    bots,
    launcher,
    runQueue,
    botCommands,
    runCredentials,
    runnerDesk,
    runnerTokens,
    runs,
    runLogs,
    previousSecrets,
    usage,
    intake,
    parked,
    retries,
    statusReports,
    questionReplies,
    schedules,
    scheduler,
    triggers,
    board,
    boardDispatcher,
    bodyBudget,
    receiveDelivery,
  };
}
