import type { ForgeApi } from "./forge-client.js";
import { forgeFailure, type HttpFailure } from "./forge-errors.js";

/** Where a library's own log lines go (octokit logs failed requests and deprecations; never headers). */
export interface ForgeLog {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

/** What a forge module gets to build one lane's {@link ForgeApi}. */
export interface ForgeApiContext {
  /** The API root, ending in `/` (e.g. `https://ghe.example/api/v3/`). */
  apiRoot: URL;
  /** The guarded fetch: it holds the token and the lane's deadline. */
  fetch: typeof fetch;
  /** A stable key for this token on this forge that reveals nothing of it (octokit's throttle groups). */
  tokenKey: string;
  /** Absent: the library's default (octokit's: warnings and errors to the console). */
  log?: ForgeLog;
  /** Whether another wait of `waitMs` fits the lane (octokit's plugins ask before retrying). */
  mayRetry(waitMs: number, retriesSoFar: number): boolean;
}

/** One forge: its library, its URLs, its token header and how its library reports an HTTP failure. */
export interface ForgeModule {
  /** The API root for a webhook's forge_base_url, or the public default (null where there is none). */
  apiRoot(forgeBaseUrl: URL | null): URL | null;
  /** The whole Authorization header for a token. */
  authorization(token: string): string;
  /** True when the library waits out rate limits itself (octokit's plugins); else the guarded fetch does. */
  readonly retriesRateLimits: boolean;
  /** The status and headers of an HTTP failure the library threw, when it was one. */
  failureOf(err: unknown): HttpFailure | undefined;
  createApi(ctx: ForgeApiContext): ForgeApi;
}

/**
 * `base` with `suffix` (e.g. `/api/v4`) appended unless it ends with it already, so both
 * `https://host` and `https://host/api/v4` name the same API. Always ends in `/`.
 */
export function apiRootUnder(base: URL, suffix: string): URL {
  const path = base.pathname.replace(/\/+$/, "");
  const full = path.endsWith(suffix) ? path : `${path}${suffix}`;
  return new URL(`${full}/`, base.origin);
}

/** The web root under an API root (gitbeaker and gitea-js add their own `/api/vN`). */
export function webRootOf(apiRoot: URL, suffix: string): string {
  return `${apiRoot.origin}${apiRoot.pathname.replace(/\/+$/, "").slice(0, -suffix.length)}`;
}

/** `owner/name` on the forges whose repository paths have exactly two parts. */
export function ownerAndName(repo: string): { owner: string; name: string } {
  const [owner, name, ...rest] = repo.split("/");
  if (!owner || !name || rest.length > 0) throw forgeFailure("not_found", `not an owner/name path: ${JSON.stringify(repo.slice(0, 80))}`);
  return { owner, name };
}
