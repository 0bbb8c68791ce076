import type { ForgeProviderName } from "./forge-client.js";
import type { HookModule } from "./forge-hooks.js";
import type { ForgeModule } from "./forge-module.js";
import type { NamedProvider } from "./provider.js";

/**
 * Everything the service knows of one forge, held in its own folder: its webhook deliveries
 * (verification and parsing), its REST API, and its repository hooks. `N` is the spec's name
 * for it, which its deliveries carry.
 */
export interface Forge<N extends ForgeProviderName = ForgeProviderName> {
  provider: NamedProvider<N>;
  api: ForgeModule;
  hooks: HookModule;
}
