import type { ForgeNameOf, ForgeProviderName } from "../../webhooks/provider-names.js";
import type { ForgeConnecting } from "./forge-connecting.js";
import type { HookModule } from "./forge-hooks.js";
import type { ForgeModule } from "./forge-module.js";
import type { NamedProvider } from "./provider.js";

/**
 * Everything the service knows of one forge, held in its own folder: its webhook deliveries
 * (verification and parsing), its REST API, its repository hooks, and what connecting to it
 * depends on (its Apps, the org tokens it mints, its repository paths). `N` is the spec's name
 * for it, which its deliveries carry; `name` its own, as the table of provider names gives it.
 */
export interface Forge<N extends ForgeProviderName = ForgeProviderName> {
  name: ForgeNameOf<N>;
  provider: NamedProvider<N>;
  api: ForgeModule;
  hooks: HookModule;
  connecting: ForgeConnecting;
}

/**
 * The registry's type: every forge provider of the table of provider names to the one forge that
 * table names for it. A name left out, a forge under another's name or one the table does not
 * name is a compile error.
 */
export type ForgeRegistry = { [N in ForgeProviderName]: Forge<N> };
