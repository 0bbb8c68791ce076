import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import type { Command } from "commander";
import { Api, ApiRefusal, UsageError } from "../api.js";
import { action } from "../context.js";
import { loadSavedSettings, saveSettings } from "../settings.js";

/** Asks on the terminal for a value not given as an option; a secret one is not echoed. */
export async function ask(question: string, secret = false): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(`${question} not given (no terminal to ask on)`);
  let muted = false;
  const output = new Writable({
    write(chunk, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = rl.question(`${question}: `);
    muted = secret;
    const value = await answer;
    if (secret) process.stderr.write("\n");
    return value.trim();
  } finally {
    rl.close();
  }
}

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("sign in and save the service URL and token (mode 0600)")
    .option("--url <url>", "the service's base URL (default: SERVICE_URL)")
    .option("--token <token>", "a personal access token (iap_…)")
    .option("--login <login>", "sign in with a password instead of a token")
    .option("--password <password>", "the password for --login (asked when missing)")
    .action(
      action(async (ctx) => {
        const url = String(ctx.opts.url ?? process.env.SERVICE_URL ?? (await ask("Service URL"))).replace(/\/+$/, "");
        if (!/^https?:\/\//.test(url)) throw new UsageError("--url must be an http(s) URL");
        let token: string | undefined = ctx.opts.token;
        let mustChange = false;
        if (ctx.opts.login !== undefined) {
          const password = ctx.opts.password ?? (await ask("Password", true));
          const signedIn = await new Api(url, undefined).post("/api/auth/login", { login: ctx.opts.login, password });
          token = signedIn.token;
          mustChange = signedIn.password_change_required === true;
        }
        token ??= process.env.SERVICE_TOKEN || (await ask("Token", true));
        const me = await new Api(url, token).get("/api/users/me");
        const file = await saveSettings({ url, token });
        ctx.out.show({ url, login: me.login, config: file, password_change_required: mustChange }, () =>
          [
            `Signed in to ${url} as ${me.login}; saved to ${file}.`,
            ...(mustChange ? ["Your password must be changed before anything else: PUT /api/users/me/password."] : []),
          ].join("\n"),
        );
      }),
    );
}

export function registerLogout(program: Command): void {
  program
    .command("logout")
    .description("end the saved session (a password sign-in) and forget the saved token")
    .action(
      action(async (ctx) => {
        const saved = await loadSavedSettings();
        if (saved.url && saved.token?.startsWith("ses_")) {
          try {
            await new Api(saved.url, saved.token).post("/api/auth/logout");
          } catch (err) {
            // A session that already ended (expired, revoked) is as good as logged out.
            if (!(err instanceof ApiRefusal && err.status === 401)) throw err;
          }
        }
        const file = await saveSettings({ url: saved.url });
        ctx.out.show({ config: file }, () => `Signed out; the token is no longer in ${file}.`);
      }),
    );
}
