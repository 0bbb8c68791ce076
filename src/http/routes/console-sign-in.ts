import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors.js";
import { clearToken, sameOrigin, setToken } from "../../console/console-session.js";
import type { SignInOutcome } from "../../tenancy/sign-in.js";
import type { App, Services } from "../services.js";
import { formOf, noStore, passwordPage, PUBLIC_ROUTE as config, SESSION_ENDED, signedIn, signInPage, statusOf } from "./console-replies.js";

/** A password sign-in the service was too busy to check, with when to try again. */
type SignInAnswer = SignInOutcome | { result: "busy"; retryAfter: number };

/** The console's session forms: sign in (with a password or an access token), change the password, sign out. */
export function registerConsoleSignIn(forms: App, s: Services): void {
  const secure = s.config.baseUrl.startsWith("https:");

  forms.post("/console/sign-in", { config }, async (req, reply) => {
    noStore(reply);
    if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Sign in from the console's own page."));
    const form = formOf(req);
    if (form.login !== undefined) return signInWithPassword(s, req, reply, { login: form.login, password: form.password ?? "" }, secure);
    const token = (form.token ?? "").trim();
    if (!(await s.authenticate(token))) return reply.code(401).send(signInPage("That token is unknown, revoked or expired."));
    setToken(reply, token, secure);
    return reply.redirect("/console", 303);
  });

  // The same change as PUT /api/users/me/password: the current password, then the new one twice.
  forms.post("/console/password", { config }, (req, reply) => changePassword(s, req, reply));

  forms.post("/console/sign-out", { config }, async (req, reply) => {
    if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
    const { principal } = await signedIn(s, req);
    // A password sign-in's session ends on the service too; a pasted access token stays valid.
    if (principal?.sessionId) await s.sessions.logout(principal);
    clearToken(reply);
    return reply.redirect("/console", 303);
  });
}

/** Signs in with a login and password: the session's cookie, or the page saying why not. */
async function signInWithPassword(
  s: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  { login, password }: { login: string; password: string },
  secure: boolean,
) {
  const outcome: SignInAnswer = await s.signIn.login(login, password, req.ip).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === "server_busy") return { result: "busy" as const, retryAfter: err.retryAfter ?? 1 };
    throw err;
  });
  switch (outcome.result) {
    case "busy":
      return reply
        .code(503)
        .header("retry-after", String(outcome.retryAfter))
        .send(signInPage("The service is busy signing others in; try again in a moment."));
    case "invalid":
      return reply.code(401).send(signInPage("Login or password is wrong."));
    case "locked":
      return reply.code(429).header("retry-after", String(outcome.retryAfter)).send(signInPage("Too many failed sign-ins; try again later."));
    case "password_change_required":
      // A session that may only change the password: straight to the form that does.
      setToken(reply, outcome.token, secure);
      return reply.redirect("/console/password", 303);
    case "success":
      setToken(reply, outcome.token, secure);
      return reply.redirect("/console", 303);
  }
}

async function changePassword(s: Services, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Change the password from the console's own page."));
  const { principal } = await signedIn(s, req);
  if (!principal) return reply.code(401).send(signInPage(SESSION_ENDED));
  const form = formOf(req);
  const me = await s.tenancy.me(principal);
  const password = form.password ?? "";
  if (password !== (form.password_again ?? ""))
    return reply.code(400).send(passwordPage(me, principal.passwordChangeRequired, false, "The two new passwords differ."));
  try {
    await s.passwords.changeOwn(principal, { password, ...(form.current_password ? { current_password: form.current_password } : {}) });
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return reply.code(statusOf(err, 400)).send(passwordPage(me, principal.passwordChangeRequired, false, err.message));
  }
  // A session's restriction is lifted and it goes on; other sessions have ended.
  return reply.redirect("/console/password?changed=1", 303);
}
