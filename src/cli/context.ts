import type { Command } from "commander";
import { Api, UsageError } from "./api.js";
import { loadSettings } from "./settings.js";
import { Output } from "./output.js";

export interface Context {
  /** The API as the saved sign-in (or SERVICE_URL/SERVICE_TOKEN) reaches it. */
  api(): Promise<Api>;
  out: Output;
  /** The command's options and the global ones. */
  opts: Record<string, any>;
}

/** Wraps a handler for commander: positional arguments first, then the context. */
export function action(fn: (ctx: Context, ...args: string[]) => Promise<void>) {
  return async (...args: unknown[]) => {
    const cmd = args.at(-1) as Command;
    const opts = cmd.optsWithGlobals();
    const ctx: Context = { api: signedIn, out: new Output(opts.json === true), opts };
    await fn(ctx, ...(args.slice(0, -2) as string[]));
  };
}

async function signedIn(): Promise<Api> {
  const s = await loadSettings();
  if (!s.url || !s.token) throw new UsageError("not signed in: run `remote login`, or set SERVICE_URL and SERVICE_TOKEN");
  return new Api(s.url.replace(/\/+$/, ""), s.token);
}

/** A whole number option, or a usage error naming it. */
export function count(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number of at least 1`);
  return n;
}

/** A whole number of seconds (0 allowed; the API judges the range), or a usage error naming the option. */
export function seconds(name: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number of seconds`);
  return n;
}
