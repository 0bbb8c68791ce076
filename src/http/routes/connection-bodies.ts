// Success bodies of forge connections: the connection, its repositories, repository bots and their health.
import { Type } from "typebox";
import { Webhook } from "./bodies.js";
import { Enum, Int, MaybeStr, MaybeTime, Nullable, Obj, Str, StrList, Time, ref } from "./body-schema.js";

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
