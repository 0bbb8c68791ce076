import type { RouteOptions } from "fastify";
import { Type, type TSchema } from "typebox";
import { ApiKey, Bot, CredentialUsage, DailyUsage, NewRunner, NewWebhookToken, OrgUsage, Run, RunDetail, Runner, Secret, Webhook } from "./bodies.js";
import { idOf, ref } from "./body-schema.js";
import { Connection, ForgeRepo, ProvisionedRepoBot, RepoBot, RepoBotHealth } from "./connection-bodies.js";
import { DELIVERY_ANSWER_SCHEMAS, DeliveryAccepted, DeliveryAnswered } from "./delivery-answer-bodies.js";
import { Delivery, DeliveryDetail, DeliveryPage, PingResult, RedeliveryResult } from "./delivery-bodies.js";
import { RUNNER_SCHEMAS, RunnerFinished, RunnerHeartbeat, RunnerOutputTaken, RunnerTicket } from "./runner-bodies.js";
import { Card, EmitAnswer, Schedule, Trigger } from "./surface-bodies.js";
import {
  Me,
  NewToken,
  Org,
  OrgMembership,
  PasswordReset,
  PasswordSet,
  Session,
  SessionsClosed,
  SignedIn,
  Team,
  TeamMembership,
  Token,
  User,
} from "./tenancy-bodies.js";
import { DenialEnvelope, ErrorBody } from "./schemas.js";

/**
 * The API document's words for each route: its operationId, summary and success status. The
 * response schemas are built from them here, so every route answers in the document with its
 * real status, its error body and (launches) the denial envelope. A route missing here has no
 * summary and fails the contract test (openapi-contract.test.ts).
 */
interface RouteDoc {
  id: string;
  summary: string;
  /** The success status: 200 unless a create (201) or a delete (204). */
  status?: 200 | 201 | 204;
  /** The route can answer a launch gate's refusal (the spec's denial envelope). */
  launches?: true;
  /** The 202 beside the 200: a launch parked for later, or a card made. */
  accepted?: TSchema;
  /** The answer is plain text, not JSON. */
  text?: true;
  /** A list: the answer's key holding the array. */
  list?: string;
  /** The success body: a named schema (bodies.ts), or with `list` the schema of each item. */
  body?: TSchema;
}

const doc = (id: string, summary: string, extra: Omit<RouteDoc, "id" | "summary"> = {}): RouteDoc => ({ id, summary, ...extra });
const created = { status: 201 } as const;
const deleted = { status: 204 } as const;
/** The success body is `schema` (a list's items with `list`). */
const as = (body: TSchema) => ({ body });

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  "POST /api/admin/orgs": doc("createOrg", "Create an org (super-admin)", { ...created, ...as(Org) }),
  "GET /api/admin/orgs": doc("listOrgs", "List every org (super-admin)", { list: "orgs", ...as(Org) }),
  "GET /api/admin/orgs/:id": doc("getOrg", "Show an org (super-admin)", as(Org)),
  "PATCH /api/admin/orgs/:id": doc("updateOrg", "Change an org's name, status or limits (super-admin)", as(Org)),
  "POST /api/orgs/:id/teams": doc("createTeam", "Create a team in an org", { ...created, ...as(Team) }),
  "GET /api/orgs/:id/teams": doc("listTeams", "List an org's teams", { list: "teams", ...as(Team) }),
  "PUT /api/orgs/:id/members/:user_id": doc("putOrgMember", "Add an org member or change their role", as(OrgMembership)),
  "DELETE /api/orgs/:id/members/:user_id": doc("deleteOrgMember", "Remove an org member", deleted),
  "GET /api/teams/:id": doc("getTeam", "Show a team", as(Team)),
  "PATCH /api/teams/:id": doc("updateTeam", "Change a team's name, status, limits or board mode", as(Team)),
  "PUT /api/teams/:id/members/:user_id": doc("putTeamMember", "Add a team member or change their role", as(TeamMembership)),
  "DELETE /api/teams/:id/members/:user_id": doc("deleteTeamMember", "Remove a team member", deleted),
  "POST /api/admin/users": doc("createUser", "Create a user (super-admin)", { ...created, ...as(User) }),
  "PATCH /api/admin/users/:id": doc("updateUser", "Change a user (super-admin)", as(User)),
  "GET /api/users/me": doc("getMe", "Show the signed-in user", as(Me)),
  "POST /api/users/me/tokens": doc("createToken", "Mint a personal access token", { ...created, ...as(NewToken) }),
  "GET /api/users/me/tokens": doc("listTokens", "List your personal access tokens", { list: "tokens", ...as(Token) }),
  "DELETE /api/users/me/tokens/:id": doc("deleteToken", "Revoke one of your personal access tokens", deleted),
  "POST /api/admin/users/:id/tokens": doc("createTokenFor", "Mint a personal access token for a user (super-admin)", { ...created, ...as(NewToken) }),
  "POST /api/auth/login": doc("login", "Sign in with a password: a session token", as(SignedIn)),
  "POST /api/auth/password-reset/confirm": doc("confirmPasswordReset", "Set a new password with a reset code", as(PasswordSet)),
  "POST /api/auth/logout": doc("logout", "End the current session", deleted),
  "PUT /api/users/me/password": doc("changePassword", "Change your password", as(PasswordSet)),
  "GET /api/users/me/sessions": doc("listSessions", "List your sessions", { list: "sessions", ...as(Session) }),
  "DELETE /api/users/me/sessions/:id": doc("deleteSession", "End one of your sessions", deleted),
  "PUT /api/admin/users/:id/password": doc("setUserPassword", "Set a user's password (super-admin)", as(PasswordSet)),
  "POST /api/admin/users/:id/password-reset": doc("issuePasswordReset", "Issue a password reset code for a user (super-admin)", {
    ...created,
    ...as(PasswordReset),
  }),
  "DELETE /api/admin/users/:id/sessions": doc("deleteUserSessions", "End every session of a user (super-admin)", as(SessionsClosed)),
  "GET /api/teams/:id/webhooks": doc("listWebhooks", "List a team's webhooks", { list: "webhooks", ...as(Webhook) }),
  "POST /api/teams/:id/webhooks": doc("createWebhook", "Create a webhook (its secret or token is shown once)", { ...created, ...as(NewWebhookToken) }),
  "GET /api/teams/:id/webhooks/:webhook_id": doc("getWebhook", "Show a webhook", as(Webhook)),
  "PATCH /api/teams/:id/webhooks/:webhook_id": doc("updateWebhook", "Change a webhook", as(Webhook)),
  "DELETE /api/teams/:id/webhooks/:webhook_id": doc("deleteWebhook", "Delete a webhook", deleted),
  "POST /api/teams/:id/webhooks/:webhook_id/rotate": doc("rotateWebhook", "Rotate a webhook's secret or token, with an optional overlap", as(NewWebhookToken)),
  "GET /api/teams/:id/webhooks/:webhook_id/deliveries": doc("listDeliveries", "List a webhook's recent deliveries", as(DeliveryPage)),
  "GET /api/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id": doc("getDelivery", "Show one delivery", as(DeliveryDetail)),
  "POST /api/teams/:id/webhooks/:webhook_id/ping": doc("pingWebhook", "Send a signed test delivery to a webhook", as(PingResult)),
  "POST /api/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver": doc("redeliver", "Deliver a stored delivery again", as(RedeliveryResult)),
  "POST /api/teams/:id/keys": doc("createTeamKey", "Store a provider key for a team", { ...created, ...as(ApiKey) }),
  "GET /api/teams/:id/keys": doc("listTeamKeys", "List a team's provider keys", { list: "keys", ...as(ApiKey) }),
  "DELETE /api/teams/:id/keys/:key_id": doc("deleteTeamKey", "Delete a team's provider key", deleted),
  "POST /api/teams/:id/secrets": doc("createSecret", "Store a secret for a team's bots", { ...created, ...as(Secret) }),
  "GET /api/teams/:id/secrets": doc("listSecrets", "List a team's secrets (names only)", { list: "secrets", ...as(Secret) }),
  "DELETE /api/teams/:id/secrets/:secret_id": doc("deleteSecret", "Delete a team's secret", deleted),
  "POST /api/orgs/:id/keys": doc("createOrgKey", "Store a provider key for an org", { ...created, ...as(ApiKey) }),
  "GET /api/orgs/:id/keys": doc("listOrgKeys", "List an org's provider keys", { list: "keys", ...as(ApiKey) }),
  "DELETE /api/orgs/:id/keys/:key_id": doc("deleteOrgKey", "Delete an org's provider key", deleted),
  "POST /api/orgs/:id/bots": doc("registerBot", "Register a bot in an org's catalog", { ...created, ...as(Bot) }),
  "GET /api/orgs/:id/bots": doc("listBots", "List an org's bots (built-ins and registered)", { list: "bots", ...as(Bot) }),
  "DELETE /api/orgs/:id/bots/:bot_id": doc("removeBot", "Remove a registered bot", deleted),
  "POST /api/runs": doc("launchRun", "Launch a run", { ...created, launches: true, ...as(Run) }),
  "GET /api/runs/:id": doc("getRun", "Show a run with its attempts and usage", as(RunDetail)),
  "DELETE /api/runs/:id": doc("deleteRun", "Delete a finished run", deleted),
  "GET /api/teams/:id/runs": doc("listRuns", "List a team's runs", { list: "runs", ...as(Run) }),
  "POST /api/runs/:id/resume": doc("resumeRun", "Resume a resumable run", { launches: true, ...as(Run) }),
  "GET /api/runs/:id/attempts/:n/log": doc("getAttemptLog", "Read an attempt's log from an offset (text)", { text: true }),
  "POST /api/runs/:id/answer": doc("answerRun", "Answer a run's question and resume it", { launches: true, ...as(Run) }),
  "POST /api/runs/:id/cancel": doc("cancelRun", "Cancel a run", as(Run)),
  "GET /api/teams/:id/dead-letters": doc("listDeadLetters", "List a team's dead-lettered launches", { list: "runs", ...as(Run) }),
  "POST /api/runs/:id/republish": doc("republishRun", "Publish a dead-lettered run's result again", as(Run)),
  "POST /api/runs/:id/discard": doc("discardRun", "Discard a dead-lettered run's result", as(Run)),
  "GET /api/teams/:id/schedules": doc("listSchedules", "List a team's schedules", { list: "schedules", ...as(Schedule) }),
  "POST /api/teams/:id/schedules": doc("createSchedule", "Create a schedule", { ...created, ...as(Schedule) }),
  "GET /api/teams/:id/schedules/:schedule_id": doc("getSchedule", "Show a schedule", as(Schedule)),
  "PATCH /api/teams/:id/schedules/:schedule_id": doc("updateSchedule", "Change a schedule", as(Schedule)),
  "DELETE /api/teams/:id/schedules/:schedule_id": doc("deleteSchedule", "Delete a schedule", deleted),
  "GET /api/v1/triggers": doc("listTriggers", "List trigger subscriptions", { list: "triggers", ...as(Trigger) }),
  "POST /api/v1/triggers": doc("createTrigger", "Subscribe a bot to an event", { ...created, ...as(Trigger) }),
  "GET /api/v1/triggers/:id": doc("getTrigger", "Show a trigger subscription", as(Trigger)),
  "PATCH /api/v1/triggers/:id": doc("updateTrigger", "Change a trigger subscription", as(Trigger)),
  "DELETE /api/v1/triggers/:id": doc("deleteTrigger", "Delete a trigger subscription", deleted),
  "POST /api/v1/triggers/emit": doc("emitEvent", "Emit an event: launches its subscribed bots", { launches: true, ...as(EmitAnswer) }),
  "GET /api/teams/:id/board/cards": doc("listCards", "List a team's board cards", { list: "cards", ...as(Card) }),
  "POST /api/teams/:id/board/cards": doc("createCard", "Create a board card", { ...created, ...as(Card) }),
  "GET /api/teams/:id/board/cards/:card_id": doc("getCard", "Show a board card", as(Card)),
  "POST /api/teams/:id/board/cards/:card_id/move": doc("moveCard", "Move a board card to a column", as(Card)),
  "POST /api/teams/:id/board/cards/:card_id/retry": doc("retryCard", "Retry a board card's failed run", as(Card)),
  "POST /api/teams/:id/board/cards/:card_id/approve": doc("approveCard", "Approve a board card waiting for a person", as(Card)),
  "GET /api/admin/orgs/:id/usage": doc("getOrgUsageAdmin", "An org's usage this month (super-admin)", as(OrgUsage)),
  "GET /api/orgs/:id/usage": doc("getOrgUsage", "An org's usage this month", as(OrgUsage)),
  "GET /api/orgs/:id/usage/daily": doc("getOrgDailyUsage", "An org's month day by day: runs created and spend", as(DailyUsage)),
  "GET /api/teams/:id/credentials/usage": doc("getTeamCredentialUsage", "A team's usage by credential", as(CredentialUsage)),
  "GET /api/admin/credentials/usage": doc("getCredentialUsageAdmin", "Usage by credential across orgs (super-admin)", as(CredentialUsage)),
  "POST /api/webhooks/:provider/:id": doc("receiveDelivery", "Receive a forge's webhook delivery (signed or token)", {
    launches: true,
    accepted: Type.Unsafe(DeliveryAccepted),
    ...as(Type.Unsafe(DeliveryAnswered)),
  }),
  "POST /api/teams/:id/forge/connections": doc("createConnection", "Connect a forge account or app", { ...created, ...as(Connection) }),
  "GET /api/teams/:id/forge/connections": doc("listConnections", "List a team's forge connections", { list: "connections", ...as(Connection) }),
  "GET /api/teams/:id/forge/connections/:connection_id": doc("getConnection", "Show a forge connection", as(Connection)),
  "PATCH /api/teams/:id/forge/connections/:connection_id": doc("updateConnection", "Change a forge connection", as(Connection)),
  "DELETE /api/teams/:id/forge/connections/:connection_id": doc("deleteConnection", "Delete a forge connection", deleted),
  "POST /api/teams/:id/forge/repo-bots": doc("provisionRepoBot", "Install a bot on a repository (webhook on the forge)", as(ProvisionedRepoBot)),
  "GET /api/teams/:id/forge/repo-bots": doc("listRepoBots", "List a team's repository bots", { list: "repo_bots", ...as(RepoBot) }),
  "DELETE /api/teams/:id/forge/repo-bots/:repo_bot_id": doc("deleteRepoBot", "Remove a repository bot and its forge webhook", deleted),
  "GET /api/teams/:id/forge/repo-bots/:repo_bot_id/health": doc("getRepoBotHealth", "Check a repository bot's webhook on the forge", as(RepoBotHealth)),
  "POST /api/teams/:id/forge/repo-bots/:repo_bot_id/rotate": doc("rotateRepoBot", "Rotate a repository bot's webhook secret", as(ProvisionedRepoBot)),
  "POST /api/teams/:id/forge/repo-bots/:repo_bot_id/repair": doc("repairRepoBot", "Recreate a repository bot's webhook on the forge", as(RepoBotHealth)),
  "GET /api/teams/:id/forge/repos": doc("listForgeRepos", "List the repositories a connection can reach", { list: "repos", ...as(ForgeRepo) }),
  "POST /api/admin/runners": doc("createPlatformRunner", "Register a platform runner: its token is shown once", { ...created, ...as(NewRunner) }),
  "GET /api/admin/runners": doc("listPlatformRunners", "List platform runners", { list: "runners", ...as(Runner) }),
  "DELETE /api/admin/runners/:id": doc("deletePlatformRunner", "Revoke a platform runner", deleted),
  "POST /api/admin/runners/:id/rotate": doc("rotatePlatformRunner", "Rotate a platform runner's token", as(NewRunner)),
  "POST /api/orgs/:id/runners": doc("createOrgRunner", "Register an org runner: its token is shown once", { ...created, ...as(NewRunner) }),
  "GET /api/orgs/:id/runners": doc("listOrgRunners", "List an org's runners", { list: "runners", ...as(Runner) }),
  "DELETE /api/orgs/:id/runners/:runner_id": doc("deleteOrgRunner", "Revoke an org runner", deleted),
  "POST /api/orgs/:id/runners/:runner_id/rotate": doc("rotateOrgRunner", "Rotate an org runner's token", as(NewRunner)),
  "POST /api/runner/v1/claim": doc("runnerClaim", "Runner: wait for and claim an attempt (204: none within the wait)", as(RunnerTicket)),
  "POST /api/runner/v1/runs/:id/heartbeat": doc("runnerHeartbeat", "Runner: keep a claimed attempt's lease", as(RunnerHeartbeat)),
  "POST /api/runner/v1/runs/:id/output": doc("runnerOutput", "Runner: append an attempt's output lines", as(RunnerOutputTaken)),
  "POST /api/runner/v1/runs/:id/finish": doc("runnerFinish", "Runner: report an attempt's outcome and usage", as(RunnerFinished)),
};

/** Every tag a route names, with what it groups (the document's `tags`). */
export const TAGS = [
  { name: "orgs", description: "Orgs (super-admin), their teams and members" },
  { name: "teams", description: "A team's settings and members" },
  { name: "users", description: "Users and personal access tokens" },
  { name: "sign-in", description: "Passwords, sessions and password resets" },
  { name: "webhooks", description: "Webhooks, their deliveries, and the public delivery endpoint" },
  { name: "credentials", description: "Provider keys and secrets" },
  { name: "bots", description: "An org's bot catalog" },
  { name: "runs", description: "Runs, their attempts, logs and dead letters" },
  { name: "schedules", description: "Runs launched on a cron schedule" },
  { name: "triggers", description: "Event subscriptions and emitted events" },
  { name: "board", description: "A team's board of cards" },
  { name: "usage", description: "Spend, runs and calls this month" },
  { name: "forge", description: "Forge connections and repository bots" },
  { name: "runners", description: "Registering runners and their tokens" },
  { name: "runner protocol", description: "What a runner calls with its rnr_ token: claim, heartbeat, output, finish" },
];

/** A body this document does not spell out field by field: every field is sent as it is. */
const AnyObject = { type: "object", additionalProperties: true, description: "The answer's fields (see docs/api.md)" };
const TextBody = { type: "string", description: "Plain text" };
const NoContent = { type: "null", description: "No content" };
const ErrorRef = { $ref: "ErrorBody#" };
const ErrorOrDenial = { description: "An error body, or a launch gate's denial envelope", anyOf: [{ $ref: "ErrorBody#" }, { $ref: "DenialEnvelope#" }] };

/** A list's answer: its array under `key` (items kept whole), beside any other fields such as a cursor. */
const listOf = (key: string) => ({ ...AnyObject, properties: { [key]: { type: "array", description: `The ${key.replace("_", " ")}` } } });
/** A list's answer whose items are `item`: the array under `key` and nothing else. */
const listOfItems = (key: string, item: TSchema) =>
  Type.Object({ [key]: Type.Array(idOf(item) ? ref(item) : item) }, { additionalProperties: false, description: `The ${key.replace("_", " ")}` });
/** The success body a route documents. */
const successOf = (d: RouteDoc) =>
  d.body ? (d.list ? listOfItems(d.list, d.body) : idOf(d.body) ? ref(d.body) : d.body) : d.list ? listOf(d.list) : AnyObject;

/** The shared schemas the responses point to (components.schemas in the document). */
export const SHARED_SCHEMAS = [
  ErrorBody,
  DenialEnvelope,
  ForgeRepo,
  RepoBotHealth,
  PingResult,
  RedeliveryResult,
  CredentialUsage,
  DeliveryDetail,
  RepoBot,
  ProvisionedRepoBot,
  OrgUsage,
  DailyUsage,
  SignedIn,
  PasswordSet,
  PasswordReset,
  SessionsClosed,
  Bot,
  Session,
  Runner,
  NewRunner,
  Webhook,
  NewWebhookToken,
  Run,
  RunDetail,
  Delivery,
  Org,
  Team,
  User,
  Me,
  Token,
  NewToken,
  ApiKey,
  Secret,
  Connection,
  Schedule,
  Trigger,
  EmitAnswer,
  Card,
  ...DELIVERY_ANSWER_SCHEMAS,
  ...RUNNER_SCHEMAS,
];

/** Fills a route's summary, operationId and responses from ROUTE_DOCS (routes already in the document only). */
export function documentRoute(r: RouteOptions): void {
  if (r.schema?.hide) return;
  const methods = ([] as string[]).concat(r.method).map((m) => (m === "HEAD" ? "GET" : m));
  const d = ROUTE_DOCS[`${methods[0]} ${r.url}`];
  if (!d) return;
  const given = (r.schema?.response ?? {}) as Record<string, unknown>;
  const status = d.status ?? 200;
  const success = status === 204 ? NoContent : d.text ? TextBody : successOf(d);
  const response: Record<string, unknown> = {
    [status]: success,
    ...(d.accepted && { 202: d.accepted }),
    "4XX": d.launches ? ErrorOrDenial : ErrorRef,
    "5XX": ErrorRef,
    ...given,
  };
  r.schema = { ...r.schema, summary: d.summary, operationId: d.id, response, ...(d.text && { produces: ["text/plain"] }) };
}
