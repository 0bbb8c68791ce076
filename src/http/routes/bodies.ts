/**
 * The API's success bodies, field by field, as the `*View` functions produce them; body-checks.ts
 * holds each equal to its view's type, and the test harness checks every answer against them.
 */
import { Type } from "typebox";
import { BOARD_MODES, PROVIDERS, REPLIER_ROLES } from "../../webhooks/webhook-config.js";
import { Enum, Int, MaybeStr, MaybeTime, Nullable, Obj, Str, StrList, StrMap, Time, ref } from "./body-schema.js";
import { Org } from "./tenancy-bodies.js";

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "failed_resumable", "cancelled"] as const;

export const RunStatus = Enum(RUN_STATUSES);

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

export const HandedKeys = Obj({
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

export const ApiKey = Obj(
  { id: Str, name: Str, provider: Str, last4: Str, fingerprint: Str, created_at: Time },
  { $id: "ApiKey", description: "A stored provider key: metadata only" },
);

export const Secret = Obj(
  { id: Str, name: Str, last4: Str, fingerprint: Str, created_at: Time },
  { $id: "Secret", description: "A stored secret: metadata only" },
);

export const BotRule = Obj({
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
