// Success bodies of deliveries: a page, one delivery with its trace, a ping, a redelivery.
import { Type } from "typebox";
import { TRACE_STEPS } from "../../deliveries/delivery-trace.js";
import { RunStatus } from "./bodies.js";
import { DeliveryAccepted, DeliveryAnswered } from "./delivery-answer-bodies.js";
import { Enum, Int, MaybeStr, MaybeTime, Nullable, Obj, Str, StrList, Time, ref } from "./body-schema.js";

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

export const TraceStep = Enum(TRACE_STEPS);

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

/** What the delivery endpoint answered: its status and its JSON body (see `receiveDelivery`). */
export const EndpointAnswer = Obj(
  {
    status: Type.Integer({ description: "The delivery endpoint's status" }),
    body: Type.Unsafe<Record<string, unknown>>({
      description: "The delivery endpoint's answer body: one of its documented answers, its error body or a launch gate's denial",
      anyOf: [...DeliveryAnswered.oneOf, ...DeliveryAccepted.oneOf, { $ref: "ErrorBody#" }, { $ref: "DenialEnvelope#" }],
    }),
  },
  { description: "The delivery endpoint's answer" },
);

export const PingResult = Obj(
  {
    event: Type.String({ description: "The test event sent" }),
    url: Type.String({ description: "The delivery URL it was sent to over the network: the webhook's delivery_url, built from SERVICE_BASE_URL" }),
    reached: Type.Boolean({ description: "This service answered 2xx, not invalid, with a delivery it recorded" }),
    delivery_id: MaybeStr,
    answer: Nullable(
      Obj(
        {
          status: Type.Integer({ description: "The HTTP status that came back" }),
          body: Type.Object({}, { additionalProperties: true, description: "The JSON answer body; {} when the answer was not JSON" }),
          text: Nullable(Type.String({ description: "The start of an answer that was not JSON (a proxy's page, another server)" })),
        },
        { description: "The answer that came back over the network; null when none came" },
      ),
    ),
    unreachable: Nullable(
      Obj(
        {
          cause: Enum(["refused", "timeout", "dns", "tls", "reset", "network"] as const),
          message: Str,
        },
        { description: "Why no answer came back" },
      ),
    ),
    hint: Nullable(Type.String({ description: "What to check: how SERVICE_BASE_URL is wrong, or who cannot reach it" })),
  },
  { $id: "PingResult", description: "A signed test delivery sent over the network to the webhook's delivery URL, and what came back" },
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
