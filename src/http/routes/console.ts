import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors.js";
import { PASSWORD_MIN } from "../../core/passwords.js";
import { html, type Safe } from "../../console/html.js";
import { page } from "../../console/layout.js";
import { deliveriesPage, deliveryPage } from "../../console/delivery-pages.js";
import { homePage, ledgerPage, orgTeamsPage, runPage, runsPage, teamPage, usagePage } from "../../console/pages.js";
import { forgePage, repoBotHealthPage } from "../../console/forge-pages.js";
import { CONSOLE_CSP, clearToken, sameOrigin, setToken, tokenOf } from "../../console/console-session.js";
import { CONSOLE_CSS } from "../../console/style.js";
import { RUN_SCRIPT } from "../../console/run-script.js";
import type { Principal } from "../../tenancy/access.js";
import type { App, Services } from "../services.js";

type Titled = { title: string; body: Safe };
type Page = (p: Principal, req: FastifyRequest) => Promise<{ title: string; body: ReturnType<typeof html> }>;
/** A refusal that is no ServiceError (a launch denial), with its status. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
const STATUS: Record<string, number> = { not_found: 404, forbidden: 403, invalid_request: 400 };
const PASSWORD_CHANGE = "Your password must be changed before you go on.";

/**
 * The web console: server-rendered pages over the same capabilities as the API, signed in with a
 * token kept in an HttpOnly, SameSite=Strict cookie. Its routes authenticate themselves (they
 * are public to the API's bearer check), and answer an anonymous visit with the sign-in page.
 */
export function registerConsoleRoutes(app: App, s: Services): void {
  const secure = s.config.baseUrl.startsWith("https:");
  const config = { public: true };
  const noStore = (reply: FastifyReply) =>
    reply.header("cache-control", "no-store").header("x-frame-options", "DENY").header("content-security-policy", CONSOLE_CSP).type("text/html; charset=utf-8");

  const signInPage = (error?: string) =>
    page(
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

  const passwordPage = (me: { login: string }, required: boolean | undefined, changed: boolean, error?: string) =>
    page(
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

  const view = (fn: Page) => async (req: FastifyRequest, reply: FastifyReply) => {
    noStore(reply);
    const token = tokenOf(req);
    const principal = token ? await s.authenticate(token) : undefined;
    if (!principal) return reply.code(token ? 401 : 200).send(signInPage(token ? "Your session has ended; sign in again." : undefined));
    if (principal.passwordChangeRequired) return reply.redirect("/console/password", 303);
    const me = await s.tenancy.me(principal);
    try {
      const { title, body } = await fn(principal, req);
      return reply.send(page(title, body, me));
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return reply.code(STATUS[err.code] ?? 400).send(page("Not available", html`<p class="error">${err.message}</p>`, me));
    }
  };
  const params = (req: FastifyRequest) => req.params as Record<string, string>;
  const query = (req: FastifyRequest) => req.query as Record<string, string | undefined>;

  app.get("/console/style.css", { config }, async (_req, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "max-age=300").send(CONSOLE_CSS),
  );
  app.get("/console/run.js", { config }, async (_req, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "max-age=300").send(RUN_SCRIPT),
  );
  // The change-password form; the one page a session that must change its password may see.
  app.get("/console/password", { config }, async (req, reply) => {
    noStore(reply);
    const token = tokenOf(req);
    const principal = token ? await s.authenticate(token) : undefined;
    if (!principal) return reply.code(token ? 401 : 200).send(signInPage(token ? "Your session has ended; sign in again." : undefined));
    const me = await s.tenancy.me(principal);
    return reply.send(passwordPage(me, principal.passwordChangeRequired, query(req).changed === "1"));
  });
  app.get(
    "/console",
    { config },
    view((p) => homePage(s, p)),
  );
  app.get(
    "/console/teams/:id",
    { config },
    view((p, req) => teamPage(s, p, params(req).id!)),
  );
  app.get(
    "/console/teams/:id/webhooks/:webhook_id",
    { config },
    view((p, req) => deliveriesPage(s, p, params(req).id!, params(req).webhook_id!, query(req), s.clock.now())),
  );
  app.get(
    "/console/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id",
    { config },
    view((p, req) => deliveryPage(s, p, params(req).id!, params(req).webhook_id!, params(req).delivery_id!)),
  );
  app.get(
    "/console/teams/:id/runs",
    { config },
    view((p, req) => runsPage(s, p, params(req).id!)),
  );
  app.get(
    "/console/teams/:id/forge",
    { config },
    view((p, req) => forgePage(s, p, params(req).id!)),
  );
  app.get(
    "/console/teams/:id/forge/repo-bots/:repo_bot_id",
    { config },
    view((p, req) => repoBotHealthPage(s, p, params(req).id!, params(req).repo_bot_id!)),
  );
  app.get(
    "/console/teams/:id/ledger",
    { config },
    view((p, req) => ledgerPage(s, p, params(req).id!, query(req).month)),
  );
  app.get(
    "/console/runs/:id",
    { config },
    view((p, req) => runPage(s, p, params(req).id!)),
  );
  app.get(
    "/console/orgs/:id/teams",
    { config },
    view((p, req) => orgTeamsPage(s, p, params(req).id!)),
  );
  app.get(
    "/console/orgs/:id/usage",
    { config },
    view((p, req) => usagePage(s, p, params(req).id!)),
  );

  app.register(async (forms) => {
    forms.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 8192 }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    forms.post("/console/sign-in", { config }, async (req, reply) => {
      noStore(reply);
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Sign in from the console's own page."));
      const form = (req.body ?? {}) as Record<string, string | undefined>;
      let token = (form.token ?? "").trim();
      if (form.login !== undefined) {
        const outcome = await s.signIn.login(form.login, form.password ?? "", req.ip).catch((err: unknown) => {
          if (err instanceof ServiceError && err.code === "server_busy") return { result: "busy" as const, retryAfter: err.retryAfter ?? 1 };
          throw err;
        });
        if (outcome.result === "busy")
          return reply
            .code(503)
            .header("retry-after", String(outcome.retryAfter))
            .send(signInPage("The service is busy signing others in; try again in a moment."));
        if (outcome.result === "invalid") return reply.code(401).send(signInPage("Login or password is wrong."));
        if (outcome.result === "locked")
          return reply.code(429).header("retry-after", String(outcome.retryAfter)).send(signInPage("Too many failed sign-ins; try again later."));
        token = outcome.token;
        // A session that may only change the password: straight to the form that does.
        if (outcome.result === "password_change_required") {
          setToken(reply, token, secure);
          return reply.redirect("/console/password", 303);
        }
      } else if (!(await s.authenticate(token))) {
        return reply.code(401).send(signInPage("That token is unknown, revoked or expired."));
      }
      setToken(reply, token, secure);
      return reply.redirect("/console", 303);
    });
    // A signed test delivery through the endpoint (team admin); the page of the delivery it gave.
    forms.post("/console/teams/:id/webhooks/:webhook_id/ping", { config }, async (req, reply) => {
      noStore(reply);
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
      const token = tokenOf(req);
      const principal = token ? await s.authenticate(token) : undefined;
      if (!principal || principal.passwordChangeRequired) return reply.redirect("/console", 303);
      const { id, webhook_id } = params(req);
      const form = (req.body ?? {}) as Record<string, string | undefined>;
      const here = `/console/teams/${encodeURIComponent(id!)}/webhooks/${encodeURIComponent(webhook_id!)}`;
      try {
        const done = await s.pings.ping(principal, id!, webhook_id!, { token: form.token?.trim() || undefined });
        return reply.redirect(done.delivery_id ? `${here}/deliveries/${encodeURIComponent(done.delivery_id)}` : here, 303);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const me = await s.tenancy.me(principal);
        return reply
          .code(STATUS[err.code] ?? 409)
          .send(page("Not sent", html`<p class="error">${err.message}</p><p><a href="${here}">Back to the deliveries</a></p>`, me));
      }
    });
    // A delivery's kept request sent again (team admin); the page of the delivery it gave, or the error on the original's.
    forms.post("/console/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", { config }, async (req, reply) => {
      noStore(reply);
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
      const token = tokenOf(req);
      const principal = token ? await s.authenticate(token) : undefined;
      if (!principal || principal.passwordChangeRequired) return reply.redirect("/console", 303);
      const { id, webhook_id, delivery_id } = params(req);
      const form = (req.body ?? {}) as Record<string, string | undefined>;
      const here = `/console/teams/${encodeURIComponent(id!)}/webhooks/${encodeURIComponent(webhook_id!)}/deliveries`;
      try {
        const done = await s.redeliveries.redeliver(principal, id!, webhook_id!, delivery_id!, { freshKey: form.fresh_key === "on" });
        const next = done.delivery_ids[0] ?? delivery_id!;
        return reply.redirect(`${here}/${encodeURIComponent(next)}`, 303);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const me = await s.tenancy.me(principal);
        return reply
          .code(STATUS[err.code] ?? 409)
          .send(page("Not sent again", html`<p class="error">${err.message}</p><p><a href="${here}/${delivery_id!}">Back to the delivery</a></p>`, me));
      }
    });
    forms.post("/console/runs/:id/answer", { config }, async (req, reply) => {
      noStore(reply);
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Answer from the console's own page."));
      const token = tokenOf(req);
      const principal = token ? await s.authenticate(token) : undefined;
      if (!principal || principal.passwordChangeRequired) return reply.code(401).send(signInPage("Your session has ended; sign in again."));
      const runId = params(req).id!;
      const answer = String(((req.body ?? {}) as Record<string, string | undefined>).answer ?? "").trim();
      const me = await s.tenancy.me(principal);
      try {
        if (answer.length === 0 || answer.length > 4000) throw new ServiceError("invalid_request", "the answer needs 1 to 4000 characters", "answer");
        const result = await s.runs.answer(principal, runId, answer);
        if (result.kind === "denied") return reply.code(result.denial.status).send(page("Not resumed", html`<p class="error">${result.denial.detail}</p>`, me));
        return reply.redirect(`/console/runs/${encodeURIComponent(runId)}`, 303);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const status = err.code === "conflict" ? 409 : (STATUS[err.code] ?? 400);
        return reply.code(status).send(page("Not answered", html`<p class="error">${err.message}</p>`, me));
      }
    });
    /**
     * A signed-in form post from the console's own origin: `fn` answers a redirect (a string) or a
     * page; a service's refusal is shown on a page with a link `back`.
     */
    const act =
      (title: string, back: (req: FastifyRequest) => string, fn: (p: Principal, req: FastifyRequest) => Promise<string | Titled>) =>
      async (req: FastifyRequest, reply: FastifyReply) => {
        noStore(reply);
        if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Act from the console's own page."));
        const token = tokenOf(req);
        const principal = token ? await s.authenticate(token) : undefined;
        if (!principal) return reply.code(401).send(signInPage("Your session has ended; sign in again."));
        if (principal.passwordChangeRequired) return reply.redirect("/console/password", 303);
        const me = await s.tenancy.me(principal);
        const backLink = html`<p><a href="${back(req)}">Back</a></p>`;
        try {
          const done = await fn(principal, req);
          if (typeof done === "string") return reply.redirect(done, 303);
          return reply.send(page(done.title, html`${done.body}${backLink}`, me));
        } catch (err) {
          if (err instanceof Refused) return reply.code(err.status).send(page(title, html`<p class="error" role="alert">${err.message}</p>${backLink}`, me));
          if (!(err instanceof ServiceError)) throw err;
          const status = err.code === "conflict" ? 409 : (STATUS[err.code] ?? 400);
          return reply.code(status).send(page(title, html`<p class="error" role="alert">${err.message}</p>${backLink}`, me));
        }
      };
    const runHere = (req: FastifyRequest) => `/console/runs/${encodeURIComponent(params(req).id!)}`;
    const hookHere = (req: FastifyRequest) => `/console/teams/${encodeURIComponent(params(req).id!)}/webhooks/${encodeURIComponent(params(req).webhook_id!)}`;
    // The same as POST /api/runs/:id/cancel and /resume (team members).
    forms.post(
      "/console/runs/:id/cancel",
      { config },
      act("Not cancelled", runHere, async (p, req) => {
        await s.runs.cancel(p, params(req).id!);
        return runHere(req);
      }),
    );
    forms.post(
      "/console/runs/:id/resume",
      { config },
      act("Not resumed", runHere, async (p, req) => {
        const result = await s.runs.resume(p, params(req).id!);
        if (result.kind === "denied") throw new Refused(result.denial.status, result.denial.detail);
        return `/console/runs/${encodeURIComponent(result.run.id)}`;
      }),
    );
    // The same as POST /api/teams/:id/webhooks/:webhook_id/rotate (team admins): the new token, shown once.
    forms.post(
      "/console/teams/:id/webhooks/:webhook_id/rotate",
      { config },
      act("Not rotated", hookHere, async (p, req) => {
        const raw = String(((req.body ?? {}) as Record<string, string | undefined>).overlap_seconds ?? "").trim();
        const overlap = raw === "" ? 0 : /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
        const done = await s.webhooks.rotate(p, params(req).id!, params(req).webhook_id!, overlap);
        const until = done.config.previous_token_valid_until;
        return {
          title: `Rotated ${done.config.name}`,
          body: html`<p>The new token, shown only now: set it on the forge.</p>
<p><code class="secret">${done.token}</code></p>
<p class="muted">${until ? html`The previous token and secret keep working until <time datetime="${until}">${until}</time>.` : "The previous token and secret stopped working now."}</p>`,
        };
      }),
    );
    // The same change as PUT /api/users/me/password: the current password, then the new one twice.
    forms.post("/console/password", { config }, async (req, reply) => {
      noStore(reply);
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Change the password from the console's own page."));
      const token = tokenOf(req);
      const principal = token ? await s.authenticate(token) : undefined;
      if (!principal) return reply.code(401).send(signInPage("Your session has ended; sign in again."));
      const form = (req.body ?? {}) as Record<string, string | undefined>;
      const me = await s.tenancy.me(principal);
      const password = form.password ?? "";
      if (password !== (form.password_again ?? ""))
        return reply.code(400).send(passwordPage(me, principal.passwordChangeRequired, false, "The two new passwords differ."));
      try {
        await s.passwords.changeOwn(principal, { password, ...(form.current_password ? { current_password: form.current_password } : {}) });
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        return reply.code(STATUS[err.code] ?? 400).send(passwordPage(me, principal.passwordChangeRequired, false, err.message));
      }
      // A session's restriction is lifted and it goes on; other sessions have ended.
      return reply.redirect("/console/password?changed=1", 303);
    });
    forms.post("/console/sign-out", { config }, async (req, reply) => {
      if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
      const token = tokenOf(req);
      const principal = token ? await s.authenticate(token) : undefined;
      // A password sign-in's session ends on the service too; a pasted access token stays valid.
      if (principal?.sessionId) await s.sessions.logout(principal);
      clearToken(reply);
      return reply.redirect("/console", 303);
    });
  });
}
