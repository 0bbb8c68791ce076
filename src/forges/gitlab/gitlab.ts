import type { Forge } from "../shared/forge.js";
import { gitlabApi } from "./gitlab-api.js";
import { gitlabHooks } from "./gitlab-hooks.js";
import { gitlabSecurityTokens } from "./gitlab-security-tokens.js";
import { gitlabWebhook } from "./gitlab-webhook.js";

/** GitLab, gitlab.com or self-managed. */
export const gitlab = {
  name: "gitlab",
  provider: gitlabWebhook,
  api: gitlabApi,
  hooks: { build: (http) => gitlabHooks(http), headers: {} },
  // A connection's token is a group or project access token, whose login is a bot of its own.
  connecting: { securityTokens: gitlabSecurityTokens, tokenLoginIsBot: true },
} satisfies Forge;
