import { ForgeFailure, forgeFailure, httpFailure } from "./forge-errors.js";

/** JSON calls under the API root through the guarded fetch (it adds the token and keeps to the root). */
export interface HookHttp {
  /** `path` is relative to the API root (no leading `/`); its segments are encoded by the caller. */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Every page of a list, following the `Link: <…>; rel="next"` all three forges send; `field` names the list in a wrapping object. */
  all(path: string, field?: string): Promise<unknown[]>;
}

/** Ten pages of 100 (Forgejo: 50): enough for an installation's repositories, bounded for a slow forge. */
const MAX_PAGES = 10;

export function hookHttp(fetch: typeof globalThis.fetch, apiRoot: URL, headers: Record<string, string> = {}): HookHttp {
  const send = async (method: string, url: URL, body?: unknown) => {
    const response = await fetch(url, {
      method,
      headers: { accept: "application/json", "user-agent": "bot-gateway", ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ForgeFailure(httpFailure(response, Date.now()));
    }
    return { body: response.status === 204 ? null : ((await response.json()) as unknown), link: response.headers.get("link") };
  };
  return {
    call: async (method, path, body) => (await send(method, new URL(path, apiRoot), body)).body,
    all: async (path, field) => {
      const items: unknown[] = [];
      let url: URL | undefined = new URL(path, apiRoot);
      for (let page = 0; url !== undefined && page < MAX_PAGES; page++) {
        const { body: answer, link } = await send("GET", url);
        const body = field === undefined ? answer : (answer as Record<string, unknown> | null)?.[field];
        if (!Array.isArray(body)) throw forgeFailure("forge_unavailable", "the forge's answer for a list is not a list");
        items.push(...body);
        const next = link?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
        // The guarded fetch refuses a next page off the API root.
        url = next === undefined ? undefined : new URL(next, url);
      }
      return items;
    },
  };
}

/** A repository path's segments, each percent-encoded. */
export const encodedPath = (repo: string) => repo.split("/").map(encodeURIComponent).join("/");

/** A delete that finds the hook already gone has done its work. */
export async function deleteOrGone(call: () => Promise<unknown>): Promise<boolean> {
  const deleted = await readOrGone(async () => {
    await call();
    return true;
  });
  return deleted ?? false;
}

/** The forge's answer, or undefined when it says the thing is not there (404, 410). */
export async function readOrGone<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ForgeFailure && err.error.code === "not_found") return undefined;
    throw err;
  }
}
