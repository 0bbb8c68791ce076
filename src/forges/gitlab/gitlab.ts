import type { Forge } from "../shared/forge.js";
import { gitlabApi } from "./gitlab-api.js";
import { gitlabHooks } from "./gitlab-hooks.js";

/** GitLab, gitlab.com or self-managed. */
export const gitlab = {
  api: gitlabApi,
  hooks: { build: (http) => gitlabHooks(http), headers: {} },
} satisfies Forge;
