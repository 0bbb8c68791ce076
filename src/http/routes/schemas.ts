import { Type } from "typebox";
import { ROTATION_OVERLAP_MAX_SECONDS } from "../../webhooks/webhook-service.js";

/** Shared request schemas: ids in paths, limits, statuses. */
export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });
/** A name's rule (core/names.ts) is the services' to apply: trimmed, it may be up to 200 characters. */
export const Name = Type.String({ maxLength: 1000 });
export const Status = Type.Union([Type.Literal("active"), Type.Literal("suspended"), Type.Literal("read-only")]);
export const Role = Type.Union([Type.Literal("member"), Type.Literal("admin")]);
export const Count = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 });
export const Usd = Type.Number({ minimum: 0, maximum: 1_000_000_000 });

export const TeamParams = Type.Object({ id: Id });
export const OrgParams = Type.Object({ id: Id });

/** `overlap_seconds`, or no body: a webhook's rotate then keeps no overlap, a repo bot's the configured one. */
export const RotateBody = Type.Union([
  Type.Object({ overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: ROTATION_OVERLAP_MAX_SECONDS })) }, { additionalProperties: false }),
  Type.Null(),
]);

/**
 * The one error body (error-handler.ts): a stable `error` code, a `detail` for people, the
 * offending `field` when one input is at fault, and the request's id to quote to an operator.
 */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "Stable error code clients switch on" }),
    detail: Type.String({ description: "What went wrong, for people" }),
    field: Type.Optional(Type.String({ description: "The input at fault, dotted (`vars.KEY`)" })),
    request_id: Type.Optional(Type.String({ description: "The request's id, also sent as X-Request-Id" })),
  },
  { $id: "ErrorBody", additionalProperties: true, description: "The error body of every route" },
);

/** The spec's fixed launch denial envelope (send-denial.ts): a gate's refusal, with its own status. */
export const DenialEnvelope = Type.Object(
  {
    error: Type.String({ description: "The gate's code (`rate_limited`, `concurrency_limit`, ...)" }),
    detail: Type.String(),
    reset_at: Type.Optional(Type.String({ description: "When the refusing window resets (ISO 8601)" })),
  },
  { $id: "DenialEnvelope", additionalProperties: true, description: "A launch refused by an admission gate" },
);
