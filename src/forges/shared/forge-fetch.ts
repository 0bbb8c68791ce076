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

/**
 * The fetch all three libraries are given. It attaches the token itself (the libraries never
 * hold it), refuses any URL off the API root, follows redirects only within it (Node's fetch
 * would carry custom headers such as GitLab's PRIVATE-TOKEN to any host), bounds each request
 * by the per-call timeout and the lane's deadline, and throws {@link ForgeFailure} for all of it.
 */
export function guardedFetch(o: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    if (o.authorization !== undefined) headers.set("authorization", o.authorization);
    let method = request.method;
    let body = request.body ? await request.arrayBuffer() : undefined;
    let url = new URL(request.url);
    let redirects = 0;
    let retries = 0;
    for (;;) {
      if (!isUnderApiRoot(url, o.apiRoot)) throw forgeFailure("forge_unavailable", `refused a request off the forge's API (${url.origin})`);
      const response = await send(o, url, { method, headers, body, redirect: "manual" }, request.signal);
      if (REDIRECTS.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get("location");
        if (location === null || ++redirects > MAX_REDIRECTS) throw forgeFailure("forge_unavailable", "the forge redirected without end");
        url = new URL(location, url);
        if (!isUnderApiRoot(url, o.apiRoot)) throw forgeFailure("forge_unavailable", `the forge redirected off its API (${url.origin}); not followed`);
        if (response.status === 303 || (method === "POST" && response.status !== 307 && response.status !== 308)) {
          method = "GET";
          body = undefined;
          headers.delete("content-type");
        }
        continue;
      }
      const wait = o.retryRateLimits && isRateLimited(response, Date.now()) ? rateLimitWaitMs(response.headers, Date.now()) : undefined;
      if (wait === undefined || !o.budget.mayRetry(wait, retries)) return response;
      retries++;
      await response.body?.cancel();
      await sleep(wait, undefined, { signal: o.budget.signal }).catch(() => {
        throw forgeFailure("forge_unavailable", "the lane's deadline passed while waiting out a rate limit");
      });
    }
  };
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
