import type { App, Services } from "../services.js";
import { registerOrgRoutes } from "./orgs.js";
import { registerSystemRoutes } from "./system.js";
import { registerTeamRoutes } from "./teams.js";
import { registerUserRoutes } from "./users.js";
import { registerSignInRoutes } from "./sign-in.js";
import { registerWebhookRoutes } from "./webhooks.js";
import { registerDeliveryRoutes } from "./deliveries.js";
import { registerCredentialRoutes } from "./credentials.js";
import { registerBotRoutes } from "./bots.js";
import { registerRunRoutes } from "./runs.js";
import { registerRunStreamRoutes } from "./run-stream.js";
import { registerUsageRoutes } from "./usage.js";
import { registerWebhookDeliveryRoutes } from "./webhook-delivery.js";
import { registerLaunchSurfaceRoutes } from "./launch-surfaces.js";
import { registerConsoleRoutes } from "./console.js";
import { registerForgeRoutes } from "./forge.js";
import { registerRunnerRoutes } from "./runners.js";

export type RouteModule = (app: App, services: Services) => void | Promise<void>;

/** Every route file, registered in this order. */
export const routeModules: RouteModule[] = [
  registerSystemRoutes,
  registerOrgRoutes,
  registerTeamRoutes,
  registerUserRoutes,
  registerSignInRoutes,
  registerWebhookRoutes,
  registerDeliveryRoutes,
  registerCredentialRoutes,
  registerBotRoutes,
  registerRunRoutes,
  registerRunStreamRoutes,
  registerLaunchSurfaceRoutes,
  registerUsageRoutes,
  registerWebhookDeliveryRoutes,
  registerConsoleRoutes,
  registerForgeRoutes,
  registerRunnerRoutes,
];
