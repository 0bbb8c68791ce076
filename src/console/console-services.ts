import type { ConnectionService } from "../connections/connection-service.js";
import type { RepoBotHealth } from "../connections/repo-bot-health.js";
import type { RepoBots } from "../connections/repo-bots.js";
import type { DeliveryLog } from "../deliveries/delivery-log.js";
import type { UsageViews } from "../metering/usage-views.js";
import type { RunLogs } from "../runs/run-logs.js";
import type { RunsApi } from "../runs/runs-api.js";
import type { TenancyService } from "../tenancy/tenancy-service.js";
import type { WebhookService } from "../webhooks/webhook-service.js";

/** What the console's pages read: the composition root's services, as far as the pages need them. */
export interface ConsoleServices {
  tenancy: TenancyService;
  webhooks: WebhookService;
  deliveries: DeliveryLog;
  connections: ConnectionService;
  repoBots: RepoBots;
  repoBotHealth: RepoBotHealth;
  runs: RunsApi;
  runLogs: RunLogs;
  usage: UsageViews;
}
