import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceError } from "../../core/errors.js";
import { PASSWORD_MIN } from "../../core/passwords.js";
import { html } from "../../console/html.js";
import { page } from "../../console/layout.js";
import { CONSOLE_CSP, tokenOf } from "../../console/console-session.js";
import type { Principal } from "../../tenancy/access.js";
import type { Services } from "../services.js";

/** The console's routes are public to the API's bearer check: they authenticate themselves. */
export const PUBLIC_ROUTE = { public: true };
export const SESSION_ENDED = "Your session has ended; sign in again.";
const PASSWORD_CHANGE = "Your password must be changed before you go on.";
const STATUS: Record<string, number> = { not_found: 404, forbidden: 403, invalid_request: 400 };

/** A refusal that is no ServiceError (a launch denial), with its status. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The status a service's refusal is shown with; `fallback` for a code with none of its own. */
export function statusOf(err: ServiceError, fallback: number): number {
  return STATUS[err.code] ?? fallback;
}

/** An action's refusal: a conflict is 409, any other as {@link statusOf}. */
export function actionStatusOf(err: ServiceError): number {
  return err.code === "conflict" ? 409 : statusOf(err, 400);
}

export const params = (req: FastifyRequest) => req.params as Record<string, string>;
export const query = (req: FastifyRequest) => req.query as Record<string, string | undefined>;
/** A posted form's fields, as the console's form parser gives them. */
export const formOf = (req: FastifyRequest) => (req.body ?? {}) as Record<string, string | undefined>;

/** The console cookie's token and whom it signs in: no principal without a cookie or for a token no longer valid. */
export async function signedIn(s: Services, req: FastifyRequest): Promise<{ token: string | undefined; principal: Principal | undefined }> {
  const token = tokenOf(req);
  return { token, principal: token ? await s.authenticate(token) : undefined };
}

/** A page's headers: never stored, never framed, the console's content policy. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .header("content-security-policy", CONSOLE_CSP)
    .type("text/html; charset=utf-8");
}

/** The sign-in page for a visit without a session: 200 for an anonymous one, 401 when its cookie's session has ended. */
export function sendSignedOut(reply: FastifyReply, token: string | undefined): FastifyReply {
  return reply.code(token ? 401 : 200).send(signInPage(token ? SESSION_ENDED : undefined));
}

export function signInPage(error?: string): string {
  return page(
    "Sign in",
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form method="post" action="/console/sign-in">
  <label>Login <input name="login" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <p><button type="submit">Sign in</button></p>
</form>
<h2>Or with an access token</h2>
<form method="post" action="/console/sign-in">
  <label>Access token <input name="token" type="password" autocomplete="off" required placeholder="iap_…"></label>
  <p><button type="submit">Sign in with the token</button></p>
</form>
<p class="muted">Create a token with <code>POST /api/users/me/tokens</code>, or ask an admin for one.</p>`,
  );
}

export function passwordPage(me: { login: string }, required: boolean | undefined, changed: boolean, error?: string): string {
  return page(
    "Change your password",
    html`${required ? html`<p class="error" role="alert">${PASSWORD_CHANGE}</p>` : ""}${error ? html`<p class="error" role="alert">${error}</p>` : ""}${
      changed ? html`<p role="status">Your password is changed; your other sessions have ended. <a href="/console">Go on to the console</a></p>` : ""
    }
<form method="post" action="/console/password">
  <input type="hidden" name="login" value="${me.login}" autocomplete="username">
  <label>Current password <input name="current_password" type="password" autocomplete="current-password"></label>
  <label>New password <input name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required></label>
  <label>New password again <input name="password_again" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required></label>
  <p><button type="submit">Change the password</button></p>
</form>`,
    me,
  );
}
