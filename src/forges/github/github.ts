import type { Forge } from "../shared/forge.js";
import { githubApi } from "./github-api.js";
import { githubApps } from "./github-apps.js";
import { githubHooks } from "./github-hooks.js";
import { githubWebhook } from "./github-webhook.js";

/** GitHub and GitHub Enterprise Server. */
export const github = {
  name: "github",
  provider: githubWebhook,
  api: githubApi,
  hooks: { build: githubHooks, headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" } },
  connecting: {
    apps: githubApps,
    securityTokens: { refused: "a GitHub token cannot mint another (a GitHub App connection can)" },
    tokenLoginIsBot: false,
  },
} satisfies Forge;
