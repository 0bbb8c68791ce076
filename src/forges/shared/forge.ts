import type { HookModule } from "./forge-hooks.js";
import type { ForgeModule } from "./forge-module.js";

/** Everything the service knows of one forge, held in its own folder: its REST API and its repository hooks. */
export interface Forge {
  api: ForgeModule;
  hooks: HookModule;
}
