// The delivery endpoint's success answers (`POST /api/webhooks/{provider}/{id}`), one closed
// schema per outcome, as http/delivery-answer.ts builds them (body-checks.ts holds them equal).
// Refusals are the ErrorBody or, for a launch gate's, the DenialEnvelope.
import { Type, type TSchema } from "typebox";
import { Enum, Obj, Str, idOf, ref } from "./body-schema.js";

const deliveryId = Type.String({ description: "The delivery's record (`GET /api/teams/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}`)" });
const bot = Type.String({ description: "The bot this result is for" });
const reason = Type.String({ description: "Why, for people (also on the delivery's record)" });
const word = <const V extends string>(value: V) => Enum([value] as const);

export const DeliveryLaunched = Obj(
  { status: word("launched"), run_id: Str, delivery_id: deliveryId, bot },
  { $id: "DeliveryLaunched", description: "A bot's run launched" },
);

export const DeliveryDuplicate = Obj(
  {
    status: word("duplicate"),
    run_id: Type.Union([Type.String(), Type.Null()], { description: "The run of the delivery this one repeats; null while its launch is parked" }),
    delivery_id: deliveryId,
    original_delivery_id: Type.String({ description: "The delivery this one repeats" }),
    bot,
  },
  { $id: "DeliveryDuplicate", description: "Delivered before (the same idempotency key): nothing launched again" },
);

export const DeliveryBotRefused = Obj(
  {
    status: word("launch_error"),
    delivery_id: deliveryId,
    bot,
    error: Type.String({ description: "The launch gate's code, as in the DenialEnvelope" }),
    detail: Str,
  },
  { $id: "DeliveryBotRefused", description: "One bot's launch refused by an admission gate, beside other bots' results (a fan-out)" },
);

export const DeliveryBotFiltered = Obj(
  { status: word("filtered"), delivery_id: deliveryId, bot, reason },
  { $id: "DeliveryBotFiltered", description: "One bot's launch left out: an older push than the one parked, or a run already in flight (`overlap: skip`)" },
);

export const DeliveryDeferred = Obj(
  { status: word("deferred"), delivery_id: deliveryId, bot, launch_at: Type.String({ format: "date-time", description: "When the parked launch starts" }) },
  { $id: "DeliveryDeferred", description: "A bot's launch parked until `launch_at`, unless a newer push replaces it (`debounce_seconds`)" },
);

export const DeliveryFiltered = Obj(
  { status: word("filtered"), delivery_id: deliveryId, reason },
  { $id: "DeliveryFiltered", description: "Nothing launched: the event was filtered or ignored (answered 200 so that the forge keeps the hook)" },
);

export const DeliveryStopped = Obj(
  { status: word("filtered"), delivery_id: deliveryId, reason, stopped: Type.Integer({ minimum: 0, description: "The runs stopped" }) },
  { $id: "DeliveryStopped", description: "A closed pull or merge request: its runs stopped and its parked launches dropped" },
);

export const DeliveryInvalid = Obj(
  { status: word("invalid"), delivery_id: deliveryId, reason },
  { $id: "DeliveryInvalid", description: "A signed payload the provider cannot use, answered 200 (bad signatures and malformed bodies are 401 and 400)" },
);

export const DeliveryLaunchError = Obj(
  { status: word("launch_error"), delivery_id: deliveryId, reason },
  { $id: "DeliveryLaunchError", description: "The forge failed a check the launch needs: nothing launched, nothing posted" },
);

export const DeliveryResults = Obj(
  {
    status: Enum(["launched", "duplicate", "filtered"] as const, "`launched` when any bot launched, else `duplicate` when any was one, else `filtered`"),
    results: Type.Array(Type.Union([ref(DeliveryLaunched), ref(DeliveryDuplicate), ref(DeliveryBotRefused), ref(DeliveryBotFiltered)])),
  },
  { $id: "DeliveryResults", description: "A webhook with several bots: each bot's result" },
);

export const DeliveryDeferredResults = Obj(
  { status: word("deferred"), results: Type.Array(Type.Union([ref(DeliveryDeferred), ref(DeliveryBotFiltered), ref(DeliveryDuplicate)])) },
  { $id: "DeliveryDeferredResults", description: "A webhook with several bots, one launch parked at least: each bot's result" },
);

export const DeliveryCarded = Obj(
  {
    status: word("accepted"),
    delivery_id: deliveryId,
    card_id: Type.String({ description: "The issue's card on the team's board" }),
    card_created: Type.Boolean({ description: "The card was made by this delivery (false: it was there, or it was approved)" }),
  },
  {
    $id: "DeliveryCarded",
    description: "The board takes the launch (`board_mode`): the issue's card is put on the board or approved, and the dispatcher launches it",
  },
);

/** Each named schema above, for the document's components. */
export const DELIVERY_ANSWER_SCHEMAS: TSchema[] = [
  DeliveryLaunched,
  DeliveryDuplicate,
  DeliveryBotRefused,
  DeliveryBotFiltered,
  DeliveryDeferred,
  DeliveryFiltered,
  DeliveryStopped,
  DeliveryInvalid,
  DeliveryLaunchError,
  DeliveryResults,
  DeliveryDeferredResults,
  DeliveryCarded,
];

/** What the endpoint answers 200 with: exactly one of these. */
export const DeliveryAnswered = {
  description: "The delivery was taken: a bot's run launched, a duplicate, filtered or ignored, invalid, or a forge check failed",
  oneOf: [
    DeliveryLaunched,
    DeliveryDuplicate,
    DeliveryBotFiltered,
    DeliveryFiltered,
    DeliveryStopped,
    DeliveryInvalid,
    DeliveryLaunchError,
    DeliveryResults,
  ].map((s) => ({ $ref: `${String(idOf(s))}#` })),
};

/** What it answers 202 with: a launch parked for later, or the board's card. */
export const DeliveryAccepted = {
  description: "Accepted for later: a launch parked under the debounce, or the issue's card on the board",
  oneOf: [DeliveryDeferred, DeliveryDeferredResults, DeliveryCarded].map((s) => ({ $ref: `${String(idOf(s))}#` })),
};
