import { setTimeout as sleep } from "node:timers/promises";
import { ForgeFailure, forgeFailure, isRateLimited, rateLimitWaitMs } from "./forge-errors.js";
import type { LaneBudget } from "./lane-budget.js";
import type { ForgeNetwork } from "./forge-network.js";
import { forgeRequestSpan } from "./forge-spans.js";

export interface GuardedFetchOptions {
  /** The forge's API root; only requests under it are sent, and only they carry the token. */
  apiRoot: URL;
  /** The whole Authorization header value: the one place the token lives. Absent: the caller's own (a GitHub App's JWT). */
  authorization?: string;
  budget: LaneBudget;
  callTimeoutMs: number;
  /** Wait out a rate limit the forge dated, once, if the wait fits the lane (for libraries that do not). */
  retryRateLimits: boolean;
  /** Where connections are opened, and which addresses they may reach. */
  network: ForgeNetwork;
}

const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether `url` is on the API root's origin and under its path, with no credentials of its own. */
export function isUnderApiRoot(url: URL, apiRoot: URL): boolean {
  const root = apiRoot.pathname.endsWith("/") ? apiRoot.pathname : `${apiRoot.pathname}/`;
  return url.origin === apiRoot.origin && url.username === "" && url.password === "" && (url.pathname.startsWith(root) || `${url.pathname}/` === root);
}

/** What is sent next: a redirect may change all of it but the headers' token. */
interface Outgoing {
  url: URL;
  method: string;
  headers: Headers;
  body: ArrayBuffer | undefined;
}

/**
 * The fetch all three libraries are given. It attaches the token itself (the libraries never
 * hold it), refuses any URL off the API root, follows redirects only within it (Node's fetch
 * would carry custom headers such as GitLab's PRIVATE-TOKEN to any host), bounds each request
 * by the per-call timeout and the lane's deadline, and throws {@link ForgeFailure} for all of it.
 */
export function guardedFetch(o: GuardedFetchOptions): typeof fetch {
  return (input, init) => fetchGuarded(o, input, init);
}

async function fetchGuarded(o: GuardedFetchOptions, input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Promise<Response> {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  if (o.authorization !== undefined) headers.set("authorization", o.authorization);
  const out: Outgoing = { url: new URL(request.url), method: request.method, headers, body: request.body ? await request.arrayBuffer() : undefined };
  let redirects = 0;
  let retries = 0;
  for (;;) {
    if (!isUnderApiRoot(out.url, o.apiRoot)) throw forgeFailure("forge_unavailable", `refused a request off the forge's API (${out.url.origin})`);
    const response = await send(o, out.url, { method: out.method, headers: out.headers, body: out.body, redirect: "manual" }, request.signal);
    if (REDIRECTS.has(response.status)) {
      await followRedirect(o, out, response, ++redirects);
      continue;
    }
    const wait = rateLimitWait(o, response, retries);
    if (wait === undefined) return response;
    retries++;
    await waitOut(o, response, wait);
  }
}

/** Points `out` at a redirect's target, if it stays on the API root and the redirects have not gone on too long. */
async function followRedirect(o: GuardedFetchOptions, out: Outgoing, response: Response, redirects: number): Promise<void> {
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null || redirects > MAX_REDIRECTS) throw forgeFailure("forge_unavailable", "the forge redirected without end");
  out.url = new URL(location, out.url);
  if (!isUnderApiRoot(out.url, o.apiRoot)) throw forgeFailure("forge_unavailable", `the forge redirected off its API (${out.url.origin}); not followed`);
  // A 303, or a 301/302 after a POST, is followed as a GET without the body.
  if (response.status === 303 || (out.method === "POST" && response.status !== 307 && response.status !== 308)) {
    out.method = "GET";
    out.body = undefined;
    out.headers.delete("content-type");
  }
}

/** How long to wait out a rate limit the forge dated, when this fetch waits them out and the lane has the time; else undefined. */
function rateLimitWait(o: GuardedFetchOptions, response: Response, retries: number): number | undefined {
  if (!o.retryRateLimits || !isRateLimited(response, Date.now())) return undefined;
  const wait = rateLimitWaitMs(response.headers, Date.now());
  return wait !== undefined && o.budget.mayRetry(wait, retries) ? wait : undefined;
}

async function waitOut(o: GuardedFetchOptions, response: Response, wait: number): Promise<void> {
  await response.body?.cancel();
  await sleep(wait, undefined, { signal: o.budget.signal }).catch(() => {
    throw forgeFailure("forge_unavailable", "the lane's deadline passed while waiting out a rate limit");
  });
}

async function send(o: GuardedFetchOptions, url: URL, init: RequestInit, callerSignal: AbortSignal): Promise<Response> {
  const callSignal = o.budget.callSignal(o.callTimeoutMs);
  try {
    return await forgeRequestSpan(url, init.method ?? "GET", () => o.network.fetch(url, { ...init, signal: AbortSignal.any([callSignal, callerSignal]) }));
  } catch (err) {
    if (err instanceof ForgeFailure) throw err;
    if (o.budget.signal.aborted) throw forgeFailure("forge_unavailable", "the lane's deadline passed before the forge answered");
    if (callSignal.aborted) throw forgeFailure("forge_unavailable", `the forge did not answer within ${o.callTimeoutMs} ms`);
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw forgeFailure("forge_unavailable", `the forge could not be reached${typeof code === "string" ? ` (${code})` : ""}`);
  }
}
