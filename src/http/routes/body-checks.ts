// Each success body schema held equal to its view's type by the compiler: a field added to a
// view and not to its schema (or the reverse) does not build.
import type { Static } from "typebox";
import type { apiKeyView, secretView } from "../../credentials/credential-views.js";
import type { connectionView, repoBotView } from "../../connections/connection-views.js";
import type { ProvisionService } from "../../connections/provision-service.js";
import type { RepoBots } from "../../connections/repo-bots.js";
import type { RepoBotHealth as RepoBotHealthService } from "../../connections/repo-bot-health.js";
import type { DeliveryLog } from "../../deliveries/delivery-log.js";
import type { UsageViews } from "../../metering/usage-views.js";
import type { cardView } from "../../surfaces/board-service.js";
import type { scheduleView } from "../../surfaces/schedule-service.js";
import type { subscriptionView } from "../../surfaces/trigger-service.js";
import type { BotCatalog } from "../../bots/bot-catalog.js";
import type { RunnerTokens } from "../../runs/desk/runner-tokens.js";
import type { Passwords } from "../../tenancy/passwords.js";
import type { SignIn } from "../../tenancy/sign-in.js";
import type { Sessions, sessionView } from "../../tenancy/sessions.js";
import type { runDetailView, runView } from "../../runs/run-views.js";
import type { TenancyService } from "../../tenancy/tenancy-service.js";
import type { AccessTokens } from "../../tenancy/tokens.js";
import type { orgView, teamView, tokenView, userView } from "../../tenancy/views.js";
import type { WebhookService } from "../../webhooks/webhook-service.js";
import type { WebhookView, deliveryView } from "../../webhooks/webhook-views.js";
import type { ApiKey, Bot, DailyUsage, NewRunner, NewWebhookToken, OrgUsage, Run, RunDetail, Runner, Secret, Webhook } from "./bodies.js";
import type { Connection, ForgeRepo, ProvisionedRepoBot, RepoBot, RepoBotHealth } from "./connection-bodies.js";
import type { Delivery, DeliveryDetail } from "./delivery-bodies.js";
import type {
  DeliveryBotFiltered,
  DeliveryBotRefused,
  DeliveryCarded,
  DeliveryDeferred,
  DeliveryDeferredResults,
  DeliveryDuplicate,
  DeliveryFiltered,
  DeliveryInvalid,
  DeliveryLaunchError,
  DeliveryLaunched,
  DeliveryResults,
  DeliveryStopped,
} from "./delivery-answer-bodies.js";
import type { cardedBody, noteBody, parkedBody, parkedResultsBody, resultBody, resultsBody, stoppedBody } from "../delivery-answer.js";
import type { RunnerDesk } from "../../runs/desk/runner-desk.js";
import type { RunnerFinished, RunnerHeartbeat, RunnerOutputTaken, RunnerTicket } from "./runner-bodies.js";
import type { ticketView } from "./runners.js";
import type { Card, Schedule, Trigger } from "./surface-bodies.js";
import type { Me, NewToken, Org, PasswordReset, PasswordSet, Session, SessionsClosed, Team, Token, User } from "./tenancy-bodies.js";

/** Holds two types equal both ways: `true` only then. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** `true` when every A is a B. */
export type Fits<A, B> = [A] extends [B] ? true : false;

export type Checks = [
  Same<Static<typeof Run>, ReturnType<typeof runView>>,
  Same<Static<typeof RunDetail>, ReturnType<typeof runDetailView>>,
  Same<Static<typeof Delivery>, ReturnType<typeof deliveryView>>,
  Same<Static<typeof Org>, ReturnType<typeof orgView>>,
  Same<Static<typeof Team>, ReturnType<typeof teamView>>,
  Same<Static<typeof User>, ReturnType<typeof userView>>,
  Same<Static<typeof Me>, Awaited<ReturnType<TenancyService["me"]>>>,
  Same<Static<typeof Token>, ReturnType<typeof tokenView>>,
  Same<Static<typeof NewToken>, Awaited<ReturnType<AccessTokens["create"]>>>,
  Same<Static<typeof ApiKey>, ReturnType<typeof apiKeyView>>,
  Same<Static<typeof Secret>, ReturnType<typeof secretView>>,
  Same<Static<typeof Connection>, ReturnType<typeof connectionView>>,
  Same<Static<typeof Webhook>, WebhookView>,
  Same<Static<typeof NewWebhookToken>, Awaited<ReturnType<WebhookService["create"]>>>,
  Same<Static<typeof NewWebhookToken>, Awaited<ReturnType<WebhookService["rotate"]>>>,
  Same<Static<typeof Schedule>, ReturnType<typeof scheduleView>>,
  Same<Static<typeof Trigger>, ReturnType<typeof subscriptionView>>,
  Same<Static<typeof Card>, ReturnType<typeof cardView>>,
  Same<Static<typeof Session>, ReturnType<typeof sessionView>>,
  Same<Static<typeof Runner>, Awaited<ReturnType<RunnerTokens["list"]>>[number]>,
  Same<Static<typeof NewRunner>, Awaited<ReturnType<RunnerTokens["create"]>>>,
  Same<Static<typeof NewRunner>, Awaited<ReturnType<RunnerTokens["rotate"]>>>,
  // A catalog entry is a built-in's or a registered bot's: each fits the one schema, which has all their fields.
  Fits<Awaited<ReturnType<BotCatalog["list"]>>[number], Static<typeof Bot>>,
  Same<keyof Awaited<ReturnType<BotCatalog["list"]>>[number], keyof Static<typeof Bot>>,
  Fits<Awaited<ReturnType<BotCatalog["register"]>>, Static<typeof Bot>>,
  Same<Static<typeof Session>, Extract<Awaited<ReturnType<SignIn["login"]>>, { token: string }>["session"]>,
  Same<Static<typeof PasswordSet>, Awaited<ReturnType<Passwords["setByAdmin"]>>>,
  Same<Static<typeof PasswordSet>, Awaited<ReturnType<Passwords["changeOwn"]>>>,
  Same<Static<typeof PasswordSet>, Awaited<ReturnType<Passwords["confirmReset"]>>>,
  Same<Static<typeof PasswordReset>, Awaited<ReturnType<Passwords["issueReset"]>>>,
  Same<Static<typeof SessionsClosed>, Awaited<ReturnType<Sessions["closeAllFor"]>>>,
  Same<Static<typeof RepoBot>, ReturnType<typeof repoBotView>>,
  Same<Static<typeof ProvisionedRepoBot>, Awaited<ReturnType<ProvisionService["view"]>>>,
  Same<Static<typeof OrgUsage>, Awaited<ReturnType<UsageViews["orgUsage"]>>>,
  Same<Static<typeof DailyUsage>, Awaited<ReturnType<UsageViews["orgDaily"]>>>,
  Same<Static<typeof DeliveryDetail>, Awaited<ReturnType<DeliveryLog["show"]>>>,
  Fits<Awaited<ReturnType<RepoBotHealthService["check"]>>, Static<typeof RepoBotHealth>>,
  Fits<Awaited<ReturnType<RepoBots["repos"]>>[number], Static<typeof ForgeRepo>>,
  // The delivery endpoint's answers (http/delivery-answer.ts), one schema per outcome.
  Same<ReturnType<typeof noteBody<"filtered">>, Static<typeof DeliveryFiltered>>,
  Same<ReturnType<typeof noteBody<"invalid">>, Static<typeof DeliveryInvalid>>,
  Same<ReturnType<typeof noteBody<"launch_error">>, Static<typeof DeliveryLaunchError>>,
  Same<ReturnType<typeof stoppedBody>, Static<typeof DeliveryStopped>>,
  Same<ReturnType<typeof cardedBody>, Static<typeof DeliveryCarded>>,
  Same<
    ReturnType<typeof resultBody>,
    Static<typeof DeliveryLaunched> | Static<typeof DeliveryDuplicate> | Static<typeof DeliveryBotRefused> | Static<typeof DeliveryBotFiltered>
  >,
  Same<ReturnType<typeof parkedBody>, Static<typeof DeliveryDeferred> | Static<typeof DeliveryBotFiltered> | Static<typeof DeliveryDuplicate>>,
  Fits<ReturnType<typeof resultsBody>, Static<typeof DeliveryResults>>,
  Fits<ReturnType<typeof parkedResultsBody>["status"], Static<typeof DeliveryResults>["status"] | Static<typeof DeliveryDeferredResults>["status"]>,
  // The runner protocol's answers (runners.ts).
  Same<Static<typeof RunnerTicket>, ReturnType<typeof ticketView>>,
  Same<Static<typeof RunnerHeartbeat>, Awaited<ReturnType<RunnerDesk["heartbeat"]>>>,
  Same<Static<typeof RunnerOutputTaken>, Awaited<ReturnType<RunnerDesk["output"]>>>,
  Same<Static<typeof RunnerFinished>, Awaited<ReturnType<RunnerDesk["finish"]>>>,
];

/** Each schema matches its view (a mismatch makes its `true` here a compile error). */
export const VIEWS_MATCH: Checks = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];
