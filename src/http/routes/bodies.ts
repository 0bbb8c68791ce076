import { Type, type Static, type TSchema } from "typebox";
import type { apiKeyView, secretView } from "../../credentials/credential-views.js";
import type { connectionView, repoBotView } from "../../connections/connection-views.js";
import type { ProvisionService } from "../../connections/provision-service.js";
import type { RepoBots } from "../../connections/repo-bots.js";
import type { RepoBotHealth as RepoBotHealthService } from "../../connections/repo-bot-health.js";
import type { DeliveryLog } from "../../deliveries/delivery-log.js";
import { TRACE_STEPS } from "../../deliveries/delivery-trace.js";
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
import { BOARD_MODES, PROVIDERS, REPLIER_ROLES } from "../../webhooks/webhook-config.js";
import type { WebhookService } from "../../webhooks/webhook-service.js";
import type { WebhookView, deliveryView } from "../../webhooks/webhook-views.js";

/**
 * The API's success bodies, field by field, as the views (`*View` functions) produce them. The
 * checks at the end make the compiler hold each schema's type and its view's return type equal
 * both ways, so a field added to a view and not here (or the reverse) does not build; the test
 * harness (test-support/answer-check.ts) checks every answer a test receives against them.
 */

/** A reference to a named schema. */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>({ $ref: `${String(idOf(schema))}#` });
/** A schema's `$id`, when it is a named one. */
export const idOf = (schema: TSchema): string | undefined => (schema as { $id?: string }).$id;

/** A value or null, as one JSON type list (`["string", "null"]`). */
function Nullable<T extends TSchema>(t: T) {
  const s = t as unknown as { type?: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...t, type: [s.type, "null"], ...(s.enum && { enum: [...s.enum, null] }) });
}
/** One of fixed strings. */
const Enum = <const V extends string>(values: readonly V[], description?: string) =>
  Type.Unsafe<V>({ type: "string", enum: [...values], ...(description && { description }) });
const Time = Type.String({ format: "date-time" });
const MaybeTime = Nullable(Time);
const Str = Type.String();
const MaybeStr = Nullable(Type.String());
const Int = Type.Integer();
const Obj = <P extends Record<string, TSchema>>(properties: P, options: { $id?: string; description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "failed_resumable", "cancelled"] as const;
const RunStatus = Enum(RUN_STATUSES);
const TenancyStatus = Enum(["active", "suspended", "read-only"] as const);

export const Run = Obj(
  {
    id: Str,
    org_id: Str,
    team_id: Str,
    bot_id: Str,
    status: RunStatus,
    vars: Type.Record(Type.String(), Type.String()),
    repo_url: MaybeStr,
    repo_ref: MaybeStr,
    project_path: MaybeStr,
    connection_id: MaybeStr,
    subject_id: MaybeStr,
    parent_subject_id: MaybeStr,
    webhook_id: MaybeStr,
    delivery_id: MaybeStr,
    source: Type.String({ description: "`api`, `webhook`, `resume`, `schedule`, …" }),
    actor: Obj({ user_id: MaybeStr, kind: Str }),
    attempt: Type.Integer({ description: "The current attempt, from 1" }),
    failure_code: MaybeStr,
    failure_detail: MaybeStr,
    retry_at: MaybeTime,
    auto_retries: Int,
    dead_lettered_at: MaybeTime,
    dead_letter_reason: MaybeStr,
    cancel_requested: Type.Boolean(),
    summary: MaybeStr,
    question: Type.Union([Obj({ text: Str, choices: Type.Optional(Type.Array(Str)) }), Type.Null()], {
      description: "What the bot last asked",
    }),
    answer: MaybeStr,
    waiting_for_answer: Type.Boolean(),
    created_at: Time,
    queued_at: Time,
    started_at: MaybeTime,
    finished_at: MaybeTime,
    updated_at: Time,
  },
  { $id: "Run", description: "A run" },
);

const HandedKeys = Obj({
  keys: Type.Array(
    Obj({
      provider: Str,
      id: Str,
      name: Str,
      last4: Str,
      tier: Nullable(Enum(["team", "pool", "platform"] as const)),
      source: Str,
    }),
  ),
  secrets: Type.Array(Obj({ name: Str, id: Str, secret_name: Str })),
});

export const RunDetail = Obj(
  {
    ...Run.properties,
    attempts: Type.Array(
      Obj({ number: Int, status: RunStatus, failure_code: MaybeStr, started_at: MaybeTime, finished_at: MaybeTime, credentials: HandedKeys }),
    ),
    usage: Obj({ cost_usd: Type.Number(), input_tokens: Int, output_tokens: Int, aggregate_tokens: Int, reports: Int }),
  },
  { $id: "RunDetail", description: "A run with its attempts (and the credentials each was handed, never a value) and its usage" },
);

export const DELIVERY_STATUSES = ["accepted", "launched", "duplicate", "filtered", "invalid", "rate_limited", "quota_exceeded", "launch_error"] as const;
export const Delivery = Obj(
  {
    id: Str,
    tenant_id: Str,
    webhook_id: Str,
    provider: Str,
    status: Enum(DELIVERY_STATUSES),
    idempotency_key: Str,
    payload_sha256: MaybeStr,
    event_kind: MaybeStr,
    event_action: MaybeStr,
    project_path: MaybeStr,
    subject_id: MaybeStr,
    subject_sha: MaybeStr,
    parent_subject_id: MaybeStr,
    source_ip: MaybeStr,
    bot_id: MaybeStr,
    run_id: MaybeStr,
    reason: MaybeStr,
    denial_reason: MaybeStr,
    refusal_code: MaybeStr,
    forge_delivery_id: MaybeStr,
    launched_at: MaybeTime,
    failed_at: MaybeTime,
    attempts: Int,
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Delivery", description: "A webhook delivery's record (the payload itself is never stored here)" },
);

export const DeliveryPage = Obj(
  {
    deliveries: Type.Array(ref(Delivery)),
    has_more: Type.Boolean({ description: "More deliveries lie past this page" }),
    before: Type.Union([Type.String(), Type.Null()], { description: "Pass as `before` for the next (older) page" }),
    after: Type.Union([Type.String(), Type.Null()], { description: "Pass as `after` for newer deliveries" }),
  },
  { description: "A page of a webhook's deliveries, newest first" },
);

const Audience = Type.Union([Enum(["all", "none"] as const), Type.Array(Str)], { description: "Which teams may use the org's keys" });
export const Org = Obj(
  {
    id: Str,
    name: Str,
    status: TenancyStatus,
    monthly_cost_cap_usd: Type.Number(),
    monthly_run_quota: Int,
    memory_quota_bytes: Int,
    monthly_webhook_calls: Int,
    credential_audience: Audience,
    retry_usage_window: Nullable(Type.Boolean()),
    retry_max_attempts: Nullable(Int),
    retry_max_wait: Nullable(Int),
    retry_jitter: Nullable(Type.Number()),
    runner_pool: Enum(["platform", "org"] as const),
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Org", description: "An org" },
);

export const Team = Obj(
  {
    id: Str,
    org_id: Str,
    name: Str,
    status: TenancyStatus,
    max_concurrent_runs: Int,
    launch_rate_per_min: Int,
    board_mode: Str,
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Team", description: "A team" },
);

export const User = Obj(
  { id: Str, login: Str, name: Str, super_admin: Type.Boolean(), active: Type.Boolean(), created_at: Time },
  { $id: "User", description: "A user" },
);

const Role = Enum(["member", "admin"] as const);
export const Me = Obj(
  {
    ...User.properties,
    orgs: Type.Array(Obj({ id: Str, name: Str, role: Role })),
    teams: Type.Array(Obj({ id: Str, name: Str, org_id: Str, role: Role })),
  },
  { $id: "Me", description: "The signed-in user with the orgs and teams they belong to" },
);

export const Token = Obj(
  { id: Str, name: Str, last4: Str, created_at: Time, last_used_at: MaybeTime, expires_at: MaybeTime },
  { $id: "Token", description: "A personal access token (never its value once minted)" },
);

export const NewToken = Obj(
  { ...Token.properties, token: Type.String({ description: "The token itself: shown this once" }) },
  { $id: "NewToken", description: "A token just minted, with its value" },
);

export const ApiKey = Obj(
  { id: Str, name: Str, provider: Str, last4: Str, fingerprint: Str, created_at: Time },
  { $id: "ApiKey", description: "A stored provider key: metadata only" },
);

export const Secret = Obj(
  { id: Str, name: Str, last4: Str, fingerprint: Str, created_at: Time },
  { $id: "Secret", description: "A stored secret: metadata only" },
);

export const Connection = Obj(
  {
    id: Str,
    team_id: Str,
    provider: Str,
    base_url: Nullable(Type.String({ description: "The forge's web root; null for the public GitHub or GitLab" })),
    auth: Enum(["token", "app"] as const, "A token, or a GitHub App"),
    bot_login: Type.String({ description: "The login the credential belongs to: the connection's bot identity" }),
    token_last4: Str,
    webhook_base_url: MaybeStr,
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Connection", description: "A forge connection: never its credential" },
);

const StrList = Type.Array(Str);
const StrMap = Type.Record(Type.String(), Type.String());
const BotRule = Obj({
  bot_id: Str,
  events: StrList,
  commands: Type.Record(Type.String(), Enum(["always", "when_args_empty", "when_args_present"] as const)),
  author_allowlist: StrList,
  author_denylist: StrList,
  author_scope: Enum(["shared", "exclusive"] as const),
  label_filter: StrList,
  launch_vars: StrMap,
});

export const Webhook = Obj(
  {
    id: Str,
    tenant_id: Str,
    provider: Enum(PROVIDERS),
    name: Str,
    enabled: Type.Boolean(),
    token_last4: Str,
    sign_mode: Enum(["token", "hmac", "standard"] as const),
    rate: Type.Number(),
    burst: Type.Number(),
    monthly_call_limit: Int,
    event_allowlist: StrList,
    label_allowlist: StrList,
    hold_labels: StrList,
    project_allowlist: StrList,
    author_allowlist: StrList,
    bot_ids: StrList,
    wildcard_bots: Type.Boolean(),
    default_bot_id: MaybeStr,
    bot_rules: Type.Union([Type.Array(BotRule), Type.Null()], { description: "One rule per co-enabled bot; null keeps the single-bot behaviour" }),
    launch_vars: StrMap,
    operator_launch_vars: StrMap,
    key_overrides: Type.Record(Type.String(), Type.String(), { description: "Provider → id of a stored key" }),
    secret_overrides: Type.Record(Type.String(), Type.String(), { description: "Secret name → id of a stored secret" }),
    review_request_logins: StrList,
    review_on_sync: Type.Boolean(),
    overlap: Enum(["", "allow", "skip", "supersede"] as const),
    retry_usage_window: Nullable(Type.Boolean()),
    retry_max_attempts: Nullable(Int),
    retry_max_wait: Nullable(Int),
    retry_jitter: Nullable(Type.Number()),
    forge_base_url: MaybeStr,
    forge_token: Nullable(Type.String({ description: "Id of a stored key (provider `forge`)" })),
    authorized_repliers: StrList,
    min_replier_role: Enum(REPLIER_ROLES),
    branch_improve_as_pr: Type.Boolean(),
    auto_implement_on_open: Type.Boolean(),
    acknowledge_commands: Type.Boolean(),
    explain_refusals: Type.Boolean(),
    board_mode: Enum(BOARD_MODES),
    keep_payloads: Type.Boolean(),
    report_status: Nullable(Type.Boolean()),
    post_questions: Type.Boolean(),
    provisioned_by: MaybeStr,
    created_at: Time,
    updated_at: Time,
    delivery_url: Type.String({ description: "The URL the forge calls" }),
    previous_token_valid_until: Nullable(
      Type.String({ format: "date-time", description: "While a rotation's overlap is open: until when the previous token is accepted" }),
    ),
  },
  { $id: "Webhook", description: "A webhook's configuration (never its secret or token)" },
);

export const NewWebhookToken = Obj(
  { config: ref(Webhook), token: Type.String({ description: "The secret or token: shown this once" }) },
  { $id: "NewWebhookToken", description: "A webhook just created or rotated, with its new secret or token" },
);

/** The fields a schedule and a trigger subscription share (surface-fields.ts launchTargetView). */
const LaunchTarget = {
  id: Str,
  team_id: Str,
  name: Str,
  bot: Str,
  vars: Type.Record(Type.String(), Type.String()),
  repo_url: MaybeStr,
  repo_ref: MaybeStr,
  project_path: MaybeStr,
  enabled: Type.Boolean(),
  last_error: Nullable(Type.String({ description: "Why its last launch was refused or failed; cleared by the next launch" })),
  last_error_at: MaybeTime,
  created_at: Time,
  updated_at: Time,
};

export const Schedule = Obj(
  {
    ...LaunchTarget,
    cron: Str,
    timezone: Str,
    next_run_at: MaybeTime,
    last_run_at: MaybeTime,
    last_run_id: MaybeStr,
  },
  { $id: "Schedule", description: "A cron schedule that launches a bot" },
);

export const Trigger = Obj(
  {
    ...LaunchTarget,
    event: Str,
    filter: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    last_run_id: MaybeStr,
    last_launched_at: MaybeTime,
  },
  { $id: "Trigger", description: "A bot subscribed to a custom event" },
);

export const EmitAnswer = Obj(
  {
    event: Str,
    launches: Type.Array(
      Type.Union([
        Obj({ subscription_id: Str, status: Enum(["launched", "duplicate"] as const), run_id: Str }),
        Obj({ subscription_id: Str, status: Enum(["denied", "failed"] as const), error: Str, detail: Str }),
      ]),
    ),
  },
  { $id: "EmitAnswer", description: "An emitted event and what each subscription it matched did" },
);

export const Card = Obj(
  {
    id: Str,
    team_id: Str,
    title: Str,
    body: Str,
    labels: Type.Array(Str),
    column: Enum(["backlog", "ready", "running", "done", "blocked"] as const),
    provenance: Str,
    source_issue_ref: MaybeStr,
    bot: Str,
    vars: Type.Record(Type.String(), Type.String()),
    repo_url: MaybeStr,
    repo_ref: MaybeStr,
    project_path: MaybeStr,
    attempts: Int,
    next_attempt_at: MaybeTime,
    run_id: MaybeStr,
    last_error: MaybeStr,
    created_at: Time,
    updated_at: Time,
  },
  { $id: "Card", description: "A board card" },
);

export const Bot = Obj(
  {
    id: Str,
    name: Str,
    description: Str,
    builtin: Type.Boolean({ description: "A built-in bot (every org has it) rather than one the org registered" }),
    created_at: Nullable(Type.String({ format: "date-time", description: "When the org registered it; null for a built-in" })),
  },
  { $id: "Bot", description: "A bot of an org's catalog" },
);

export const Session = Obj(
  {
    id: Str,
    address: Type.String({ description: "The address the sign-in came from" }),
    password_change_required: Type.Boolean(),
    current: Type.Boolean({ description: "The session this request came with" }),
    created_at: Time,
    last_used_at: MaybeTime,
    expires_at: Time,
  },
  { $id: "Session", description: "A signed-in session" },
);

export const Runner = Obj(
  {
    id: Str,
    name: Str,
    pool: Enum(["platform", "org"] as const),
    org_id: MaybeStr,
    last4: Str,
    status: Enum(["online", "offline", "revoked"] as const, "online: seen within the connected window"),
    created_at: Time,
    rotated_at: MaybeTime,
    last_seen_at: MaybeTime,
    revoked_at: MaybeTime,
  },
  { $id: "Runner", description: "A registered runner (never its token)" },
);

export const NewRunner = Obj(
  { ...Runner.properties, token: Type.String({ description: "The rnr_ token: shown this once" }) },
  { $id: "NewRunner", description: "A runner just registered or rotated, with its token" },
);

export const SignedIn = Obj(
  {
    token: Type.String({ description: "The ses_ session token: shown this once" }),
    session: ref(Session),
    password_change_required: Type.Boolean({ description: "The session may only change the password until it is changed" }),
  },
  { $id: "SignedIn", description: "A new session" },
);

export const PasswordSet = Obj(
  { user_id: Str, password_set_at: Time, password_change_required: Type.Boolean(), sessions_closed: Int },
  { $id: "PasswordSet", description: "A password set, and how many of the user's other sessions it ended" },
);

export const PasswordReset = Obj(
  { id: Str, user_id: Str, token: Type.String({ description: "The single-use reset code: shown this once" }), expires_at: Time },
  { $id: "PasswordReset", description: "A password reset code issued for a user" },
);

export const SessionsClosed = Obj({ closed: Int }, { $id: "SessionsClosed", description: "How many sessions were ended" });

export const RepoBot = Obj(
  {
    id: Str,
    connection_id: Str,
    repo: Str,
    webhook_id: Nullable(Type.String({ description: "The webhook it provisioned" })),
    hook_id: Nullable(Type.String({ description: "The forge's id of its webhook" })),
    hook_url: MaybeStr,
    gate_context: MaybeStr,
    auto_fix_on_gate_failure: Type.Boolean(),
    review_after_gate: Type.Boolean(),
    security_read: Type.Union([Obj({ enabled: Type.Boolean() }), Obj({ enabled: Type.Boolean(), secret_id: Str, expires_at: MaybeTime })], {
      description: "Whether runs get a read token for the repository's security alerts",
    }),
    created_at: Time,
    updated_at: Time,
  },
  { $id: "RepoBot", description: "A bot installed on a repository" },
);

export const ProvisionedRepoBot = Obj(
  {
    ...RepoBot.properties,
    webhook: Type.Optional(ref(Webhook)),
    forge_written: Type.Optional(Type.Boolean({ description: "The forge's webhook was written by this call" })),
  },
  { $id: "ProvisionedRepoBot", description: "A repository bot with the webhook it provisioned" },
);

export const OrgUsage = Obj(
  {
    month: Type.String({ description: "YYYY-MM (UTC)" }),
    scope: Enum(["admin", "org"] as const),
    org: ref(Org),
    members: Int,
    effective_memory_quota_bytes: Int,
    monthly_run_quota: Int,
    runs_this_month: Int,
    cost_usd_this_month: Type.Number(),
    input_tokens_this_month: Int,
    output_tokens_this_month: Int,
    aggregate_tokens_this_month: Int,
    monthly_cost_cap_usd: Type.Number(),
    max_concurrent_runs: Int,
    active_runs: Int,
    webhook_calls_this_month: Int,
    memory_used_bytes: Int,
    api_key_count: Int,
    generic_secret_count: Int,
    bot_binding_count: Int,
    webhook_count: Int,
    teams: Type.Array(Obj({ id: Str, name: Str, max_concurrent_runs: Int, launch_rate_per_min: Int, active_runs: Int })),
  },
  { $id: "OrgUsage", description: "An org's usage this month against its effective limits" },
);

export const DailyUsage = Obj(
  {
    month: Type.String({ description: "YYYY-MM (UTC)" }),
    org_id: Str,
    days: Type.Array(Obj({ date: Type.String({ format: "date" }), runs: Int, cost_usd: Type.Number() })),
  },
  { $id: "DailyUsage", description: "An org's month day by day: runs created and spend" },
);

const TraceStep = Enum(TRACE_STEPS);
export const DeliveryDetail = Obj(
  {
    delivery: ref(Delivery),
    trace: Obj({
      decided_by: TraceStep,
      steps: Type.Array(Obj({ step: TraceStep, result: Enum(["passed", "decided", "not_reached"] as const), detail: MaybeStr })),
    }),
    run: Type.Union([Obj({ id: Str, status: RunStatus, bot_id: Str, failure_code: MaybeStr }), Type.Null()], { description: "The run it started" }),
    request: Type.Union(
      [
        Obj({
          id: Str,
          received_at: Time,
          expires_at: Time,
          headers: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), { description: "Signatures and tokens redacted" }),
          body_bytes: Int,
          body_kept: Type.Boolean(),
          body_encoding: Nullable(Enum(["utf8", "base64"] as const)),
          body: MaybeStr,
        }),
        Type.Null(),
      ],
      { description: "The request as it arrived, when the webhook keeps payloads" },
    ),
    request_missing: Nullable(Type.String({ description: "Why no request is shown" })),
    redelivery_of: Nullable(Type.String({ description: "The delivery this one sent again" })),
    redelivery: Type.Union(
      [Obj({ proof: Enum(["verified_again", "verified_on_arrival"] as const), fresh_key: Type.Boolean(), requested_by: MaybeStr }), Type.Null()],
      { description: "How this delivery was sent again" },
    ),
    redelivered_as: Type.Array(Str, { description: "The deliveries that sent this one again" }),
  },
  { $id: "DeliveryDetail", description: "One delivery with the trace of the steps it passed, its run and its kept request" },
);

const OrgMembership = Obj({ org_id: Str, user_id: Str, role: Enum(["member", "admin"] as const) }, { description: "The org membership as it now is" });
const TeamMembership = Obj({ team_id: Str, user_id: Str, role: Enum(["member", "admin"] as const) }, { description: "The team membership as it now is" });
export { OrgMembership, TeamMembership };

export const CredentialUsage = Obj(
  {
    month: Type.String({ description: "YYYY-MM (UTC)" }),
    scope: Obj({ tier: MaybeStr, fingerprint: MaybeStr, repo: MaybeStr, team_id: MaybeStr }, { description: "The filters applied" }),
    credentials: Type.Array(
      Obj({
        fingerprint: Str,
        provider: Str,
        tier: Str,
        repo: Type.Optional(Type.String({ description: "With a `repo` filter" })),
        metered_usd: Type.Number({ description: "Real money spent" }),
        estimated_usd: Type.Number({ description: "Subscription-equivalent estimate, never added to metered" }),
        attempts: Int,
        input_tokens: Int,
        output_tokens: Int,
        aggregate_tokens: Int,
        tenants: Type.Optional(Type.Integer({ description: "Teams that used it (across teams only)" })),
      }),
    ),
  },
  { $id: "CredentialUsage", description: "Usage by credential this month: one line per key fingerprint" },
);

/** What the delivery endpoint answered: its status and its JSON body (see `receiveDelivery`). */
const EndpointAnswer = Obj(
  {
    status: Type.Integer({ description: "The delivery endpoint's status" }),
    body: Type.Object({}, { additionalProperties: true, description: "The delivery endpoint's answer body" }),
  },
  { description: "The delivery endpoint's answer" },
);

export const PingResult = Obj(
  {
    event: Type.String({ description: "The test event sent" }),
    reached: Type.Boolean({ description: "The endpoint took it (a 2xx, not invalid)" }),
    delivery_id: MaybeStr,
    answer: EndpointAnswer,
  },
  { $id: "PingResult", description: "A signed test delivery and how the endpoint answered it" },
);

export const RedeliveryResult = Obj(
  {
    redelivery_of: Str,
    delivery_ids: StrList,
    proof: Enum(["verified_again", "verified_on_arrival"] as const),
    fresh_key: Type.Boolean(),
    answer: EndpointAnswer,
  },
  { $id: "RedeliveryResult", description: "A stored delivery sent again, and how the endpoint answered it" },
);

export const RepoBotHealth = Obj(
  {
    repo_bot_id: Str,
    repo: Str,
    provider: Str,
    webhook_id: MaybeStr,
    status: Enum(["healthy", "degraded", "broken"] as const),
    problems: Type.Array(
      Obj({
        code: Enum(["forge_unreachable", "hook_missing", "hook_moved", "hook_disabled", "events_missing", "deliveries_failing", "signature_refused"] as const),
        detail: Str,
      }),
    ),
    hook_id: MaybeStr,
    hook_url: MaybeStr,
    hook_written_at: MaybeTime,
    hook: Type.Union(
      [
        Obj({
          id: Str,
          url: Str,
          active: Type.Boolean(),
          events: Nullable(StrList),
          alert_status: Type.Optional(Type.String({ description: "GitLab: executable, disabled or temporarily_disabled" })),
          disabled_until: Type.Optional(MaybeStr),
        }),
        Type.Null(),
      ],
      { description: "The hook as the forge shows it" },
    ),
    deliveries: Type.Union(
      [
        Obj({
          checked: Int,
          failed: Int,
          failing_streak: Int,
          latest_failure: Type.Union([Obj({ status_code: Int, status: Str, delivered_at: Str }), Type.Null()]),
          latest_success_at: MaybeStr,
        }),
        Type.Null(),
      ],
      { description: "The forge's record of its latest deliveries, where it keeps one" },
    ),
    received: Obj({ last_delivery_at: MaybeTime, refused_since_written: Int, last_refused_at: MaybeTime }),
    checked_at: Time,
  },
  { $id: "RepoBotHealth", description: "A repository bot's webhook as the forge and the service see it" },
);

export const ForgeRepo = Obj(
  {
    repo: Str,
    connection_id: Str,
    provider: Str,
    provisioned: Type.Boolean({ description: "A repository bot's webhook is on it" }),
    repo_bot_id: MaybeStr,
    hook_id: MaybeStr,
    hook: Nullable(Enum(["ok", "moved", "missing"] as const, "The provisioned hook as the forge shows it")),
  },
  { $id: "ForgeRepo", description: "A repository a connection can reach" },
);

/** The named schemas, each under components.schemas by its $id. */
export const BODY_SCHEMAS = [
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
];

/** Holds two types equal both ways: `true` only then. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** `true` when every A is a B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Checks = [
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
];
