import type { FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors.js";
import { html } from "../../console/html.js";
import { page } from "../../console/layout.js";
import { deliveriesPage, deliveryPage } from "../../console/delivery-pages.js";
import { homePage, ledgerPage, orgTeamsPage, runPage, runsPage, teamPage, usagePage } from "../../console/pages.js";
import { forgePage, repoBotHealthPage } from "../../console/forge-pages.js";
import { CONSOLE_CSS } from "../../console/style.js";
import { RUN_SCRIPT } from "../../console/run-script.js";
import type { Principal } from "../../tenancy/access.js";
import type { App, Services } from "../services.js";
import { registerConsoleActions } from "./console-actions.js";
import { noStore, params, passwordPage, PUBLIC_ROUTE as config, query, sendSignedOut, signedIn, statusOf } from "./console-replies.js";
import { registerConsoleSignIn } from "./console-sign-in.js";

type Page = (p: Principal, req: FastifyRequest) => Promise<{ title: string; body: ReturnType<typeof html> }>;

/**
 * The web console: server-rendered pages over the same capabilities as the API, signed in with a
 * token kept in an HttpOnly, SameSite=Strict cookie. Its routes authenticate themselves (they
 * are public to the API's bearer check), and answer an anonymous visit with the sign-in page.
 */
export function registerConsoleRoutes(app: App, s: Services): void {
  const view = pageView(s);
  app.get("/console/style.css", { config }, async (_req, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "max-age=300").send(CONSOLE_CSS),
  );
  app.get("/console/run.js", { config }, async (_req, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "max-age=300").send(RUN_SCRIPT),
  );
  // The change-password form; the one page a session that must change its password may see.
  app.get("/console/password", { config }, async (req, reply) => {
    noStore(reply);
    const { token, principal } = await signedIn(s, req);
    if (!principal) return sendSignedOut(reply, token);
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
    registerConsoleSignIn(forms, s);
    registerConsoleActions(forms, s);
  });
}

/**
 * A page for a signed-in user: the sign-in page without a session, the change-password form for a
 * session that must change it, and a service's refusal on a page of its own.
 */
function pageView(s: Services) {
  return (fn: Page) => (req: FastifyRequest, reply: FastifyReply) => showPage(s, fn, req, reply);
}

async function showPage(s: Services, fn: Page, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  const { token, principal } = await signedIn(s, req);
  if (!principal) return sendSignedOut(reply, token);
  if (principal.passwordChangeRequired) return reply.redirect("/console/password", 303);
  const me = await s.tenancy.me(principal);
  try {
    const { title, body } = await fn(principal, req);
    return reply.send(page(title, body, me));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return reply.code(statusOf(err, 400)).send(page("Not available", html`<p class="error">${err.message}</p>`, me));
  }
}
