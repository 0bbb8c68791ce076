// Success bodies of orgs, teams, users, tokens, sessions, sign-in and passwords.
import { Type } from "typebox";
import { Enum, Int, MaybeTime, Nullable, Obj, Str, Time, ref } from "./body-schema.js";

export const TenancyStatus = Enum(["active", "suspended", "read-only"] as const);

export const Audience = Type.Union([Enum(["all", "none"] as const), Type.Array(Str)], { description: "Which teams may use the org's keys" });

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

export const Role = Enum(["member", "admin"] as const);

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

export const OrgMembership = Obj({ org_id: Str, user_id: Str, role: Enum(["member", "admin"] as const) }, { description: "The org membership as it now is" });

export const TeamMembership = Obj(
  { team_id: Str, user_id: Str, role: Enum(["member", "admin"] as const) },
  { description: "The team membership as it now is" },
);
