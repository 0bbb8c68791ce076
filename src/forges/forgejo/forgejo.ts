import type { Forge } from "../shared/forge.js";
import { forgejoApi } from "./forgejo-api.js";
import { forgejoHooks } from "./forgejo-hooks.js";

/** Forgejo, and Gitea (and Gogs) whose API and hooks Forgejo keeps. */
export const forgejo = {
  api: forgejoApi,
  hooks: { build: (http) => forgejoHooks(http), headers: {} },
} satisfies Forge;
