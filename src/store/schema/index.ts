import type { IntakeTables } from "./intake.js";
import type { RunsTables } from "./runs.js";
import type { TenancyTables } from "./tenancy.js";
import type { UsageTables } from "./usage.js";
import type { WebhookTables } from "./webhooks.js";
import type { CredentialTables } from "./credentials.js";
import type { BotTables } from "./bots.js";
import type { LaunchSurfaceTables } from "./launch-surfaces.js";
import type { ForgeTables } from "./forge.js";
import type { KeptRequestTables } from "./kept-requests.js";

/** Every table of the store, one interface per capability's group. */
export interface Database
  extends TenancyTables,
    WebhookTables,
    CredentialTables,
    BotTables,
    IntakeTables,
    RunsTables,
    UsageTables,
    LaunchSurfaceTables,
    ForgeTables,
    KeptRequestTables {}
