import { ForgeFailure, httpFailure } from "../forge-errors.js";

/** A JSON call under the API root through the guarded fetch (it adds the token and keeps to the root). */
export type HookHttp = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** `path` is relative to the API root (no leading `/`); its segments are encoded by the caller. */
export function hookHttp(fetch: typeof globalThis.fetch, apiRoot: URL, headers: Record<string, string> = {}): HookHttp {
  return async (method, path, body) => {
    const response = await fetch(new URL(path, apiRoot), {
      method,
      headers: { accept: "application/json", "user-agent": "bot-gateway", ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ForgeFailure(httpFailure(response, Date.now()));
    }
    if (response.status === 204) return null;
    return response.json();
  };
}

/** A repository path's segments, each percent-encoded. */
export const encodedPath = (repo: string) => repo.split("/").map(encodeURIComponent).join("/");

/** A delete that finds the hook already gone has done its work. */
export async function deleteOrGone(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (err) {
    if (err instanceof ForgeFailure && err.error.code === "not_found") return false;
    throw err;
  }
}
