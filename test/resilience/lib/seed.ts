/** Seeding through the management API with the super-admin token, as an operator would. */
import { createHmac, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type http from "node:http";
import { api, request, type Api, type Reply } from "./http.js";
import { ADMIN_TOKEN } from "./proc.js";

export const admin = (base: string) => api(base, ADMIN_TOKEN);

export interface Org {
  id: string;
}
export interface Team {
  id: string;
}
export interface Hook {
  id: string;
  token: string;
  provider: string;
}

export async function createOrg(a: Api, body: Record<string, unknown> = {}): Promise<Org> {
  return a.post("/api/admin/orgs", { name: `org-${randomUUID().slice(0, 8)}`, ...body });
}
export async function createTeam(a: Api, org: Org, body: Record<string, unknown> = {}): Promise<Team> {
  return a.post(`/api/orgs/${org.id}/teams`, { name: `team-${randomUUID().slice(0, 8)}`, ...body });
}
export async function createHook(a: Api, team: Team, body: Record<string, unknown>): Promise<Hook> {
  const r = await a.post(`/api/teams/${team.id}/webhooks`, { bot_ids: ["review-pr"], ...body });
  return { id: r.config.id, token: r.token, provider: r.config.provider };
}
/** A fresh user who is admin of `team`, with its own token (not a super-admin: the gate applies). */
export async function teamAdminToken(a: Api, team: Team): Promise<string> {
  const u = await a.post("/api/admin/users", { login: `u-${randomUUID().slice(0, 12)}` });
  const t = await a.post(`/api/admin/users/${u.id}/tokens`, { name: "resilience" });
  await a.put(`/api/teams/${team.id}/members/${u.id}`, { role: "admin" });
  return t.token;
}

/** An org + team + generic webhook with limits opened wide (for load, not for limits). */
export async function seedWideOpen(base: string, provider: "generic" | "forge_b" = "generic") {
  const a = admin(base);
  const org = await createOrg(a, { monthly_webhook_calls: 100_000_000 });
  const team = await createTeam(a, org);
  const hook = await createHook(a, team, { provider, rate: 10_000, burst: 100_000 });
  return { org, team, hook };
}

export function sendGeneric(base: string, hook: Hook, body: unknown, agent?: http.Agent, timeoutMs?: number): Promise<Reply> {
  return request(`${base}/api/webhooks/generic/${hook.id}`, {
    method: "POST",
    agent,
    timeoutMs,
    headers: { "content-type": "application/json", "x-service-webhook-token": hook.token },
    body: JSON.stringify(body),
  });
}

export const sign = (secret: string, body: string | Buffer) => createHmac("sha256", secret).update(body).digest("hex");

interface ExampleDefinition {
  name: string;
  examples: Array<Record<string, any>>;
}
let examples: ExampleDefinition[] | undefined;
/** GitHub's own pull_request.opened example (from @octokit/webhooks-examples) with our head sha. */
export function githubPrOpened(sha: string): Record<string, any> {
  examples ??= createRequire(import.meta.url)("@octokit/webhooks-examples/api.github.com/index.json") as ExampleDefinition[];
  const def = examples.find((d) => d.name === "pull_request")!;
  const p = structuredClone(def.examples.find((e) => e.action === "opened")!);
  p.pull_request.head.sha = sha;
  p.pull_request.draft = false;
  return p;
}

export function sendGithub(base: string, hook: Hook, body: string | Buffer, agent?: http.Agent, event = "pull_request"): Promise<Reply> {
  return request(`${base}/api/webhooks/forge_b/${hook.id}`, {
    method: "POST",
    agent,
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": `sha256=${sign(hook.token, body)}`,
    },
    body,
  });
}
