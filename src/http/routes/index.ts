import type { App, Services } from "../app.js";
import { registerOrgRoutes } from "./orgs.js";
import { registerSystemRoutes } from "./system.js";
import { registerTeamRoutes } from "./teams.js";
import { registerUserRoutes } from "./users.js";

export type RouteModule = (app: App, services: Services) => void | Promise<void>;

/** Every route file, registered in this order. */
export const routeModules: RouteModule[] = [registerSystemRoutes, registerOrgRoutes, registerTeamRoutes, registerUserRoutes];
