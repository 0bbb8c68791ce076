import type { FastifyReply, FastifyRequest } from "fastify";
import { invalid, notFound, ServiceError } from "../../core/errors.js";
import { pingResultPage } from "../../console/delivery-pages.js";
import { html, type Safe } from "../../console/html.js";
import { page } from "../../console/layout.js";
import { sameOrigin } from "../../console/console-session.js";
import type { Principal } from "../../tenancy/access.js";
import { BOARD_MODES, type BoardMode } from "../../tenancy/board-mode.js";
import type { App, Services } from "../services.js";
import { actionStatusOf, formOf, noStore, params, PUBLIC_ROUTE as config, Refused, SESSION_ENDED, signedIn, signInPage, statusOf } from "./console-replies.js";

type Titled = { title: string; body: Safe };

const runHere = (req: FastifyRequest) => `/console/runs/${encodeURIComponent(params(req).id!)}`;
const hookHere = (req: FastifyRequest) => `/console/teams/${encodeURIComponent(params(req).id!)}/webhooks/${encodeURIComponent(params(req).webhook_id!)}`;
const teamHere = (req: FastifyRequest) => `/console/teams/${encodeURIComponent(params(req).id!)}`;
const repoBotHere = (req: FastifyRequest) => `${teamHere(req)}/forge/repo-bots/${encodeURIComponent(params(req).repo_bot_id!)}`;
const isBoardMode = (v: string): v is BoardMode => (BOARD_MODES as readonly string[]).includes(v);

/** The console's forms that act on a run, a webhook, a team's board or a repository's gate, as the API's routes for them do. */
export function registerConsoleActions(forms: App, s: Services): void {
  // A signed test delivery over the network to the delivery URL (team admin); the delivery it gave, or what came back.
  forms.post("/console/teams/:id/webhooks/:webhook_id/ping", { config }, (req, reply) => ping(s, req, reply));
  // A delivery's kept request sent again (team admin); the page of the delivery it gave, or the error on the original's.
  forms.post("/console/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", { config }, (req, reply) => redeliver(s, req, reply));
  forms.post("/console/runs/:id/answer", { config }, (req, reply) => answer(s, req, reply));
  const action = signedInAction(s);
  // The same as POST /api/runs/:id/cancel and /resume (team members).
  forms.post(
    "/console/runs/:id/cancel",
    { config },
    action("Not cancelled", runHere, async (p, req) => {
      await s.runs.cancel(p, params(req).id!);
      return runHere(req);
    }),
  );
  forms.post(
    "/console/runs/:id/resume",
    { config },
    action("Not resumed", runHere, async (p, req) => {
      const result = await s.runs.resume(p, params(req).id!);
      if (result.kind === "denied") throw new Refused(result.denial.status, result.denial.detail);
      return `/console/runs/${encodeURIComponent(result.run.id)}`;
    }),
  );
  // The same as POST /api/teams/:id/webhooks/:webhook_id/rotate (team admins): the new token, shown once.
  forms.post(
    "/console/teams/:id/webhooks/:webhook_id/rotate",
    { config },
    action("Not rotated", hookHere, async (p, req) => {
      const raw = String(formOf(req).overlap_seconds ?? "").trim();
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
  // The same as PATCH /api/teams/:id with board_mode (team admins).
  forms.post(
    "/console/teams/:id/board",
    { config },
    action("Board not set", teamHere, async (p, req) => {
      const mode = String(formOf(req).board_mode ?? "");
      if (!isBoardMode(mode)) throw invalid("board_mode", `board_mode must be ${BOARD_MODES.join(", ")}`);
      await s.tenancy.updateTeam(p, params(req).id!, { board_mode: mode });
      return teamHere(req);
    }),
  );
  // The gate settings set as POST /api/teams/:id/forge/repo-bots sets them (team admins): an unticked box is off.
  forms.post(
    "/console/teams/:id/forge/repo-bots/:repo_bot_id/gate",
    { config },
    action("Gate not set", repoBotHere, async (p, req) => {
      const { id, repo_bot_id } = params(req);
      const rb = (await s.repoBots.list(p, id!)).find((b) => b.id === repo_bot_id);
      if (!rb) throw notFound("repo bot");
      const form = formOf(req);
      const gate = String(form.gate_context ?? "").trim();
      if (gate.length > 200) throw invalid("gate_context", "gate_context must be at most 200 characters");
      await s.provisioning.provision(p, id!, {
        connection_id: rb.connection_id,
        repo: rb.repo,
        gate_context: gate,
        review_after_gate: form.review_after_gate === "on",
        auto_fix_on_gate_failure: form.auto_fix_on_gate_failure === "on",
      });
      return repoBotHere(req);
    }),
  );
}

/** The principal of a session that may act: none without one, or for a session that must first change its password. */
async function actor(s: Services, req: FastifyRequest): Promise<Principal | undefined> {
  const { principal } = await signedIn(s, req);
  return principal && !principal.passwordChangeRequired ? principal : undefined;
}

async function ping(s: Services, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
  const principal = await actor(s, req);
  if (!principal) return reply.redirect("/console", 303);
  const { id, webhook_id } = params(req);
  const here = `/console/teams/${encodeURIComponent(id!)}/webhooks/${encodeURIComponent(webhook_id!)}`;
  try {
    const done = await s.pings.ping(principal, id!, webhook_id!, { token: formOf(req).token?.trim() || undefined });
    // Landed with nothing to check: the delivery's own page. Otherwise what came back, and the hint.
    if (done.reached && done.delivery_id && !done.hint) return reply.redirect(`${here}/deliveries/${encodeURIComponent(done.delivery_id)}`, 303);
    const shown = pingResultPage(id!, webhook_id!, done);
    return reply.send(page(shown.title, shown.body, await s.tenancy.me(principal)));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    const me = await s.tenancy.me(principal);
    return reply
      .code(statusOf(err, 409))
      .send(page("Not sent", html`<p class="error">${err.message}</p><p><a href="${here}">Back to the deliveries</a></p>`, me));
  }
}

async function redeliver(s: Services, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send();
  const principal = await actor(s, req);
  if (!principal) return reply.redirect("/console", 303);
  const { id, webhook_id, delivery_id } = params(req);
  const here = `/console/teams/${encodeURIComponent(id!)}/webhooks/${encodeURIComponent(webhook_id!)}/deliveries`;
  try {
    const done = await s.redeliveries.redeliver(principal, id!, webhook_id!, delivery_id!, { freshKey: formOf(req).fresh_key === "on" });
    const next = done.delivery_ids[0] ?? delivery_id!;
    return reply.redirect(`${here}/${encodeURIComponent(next)}`, 303);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    const me = await s.tenancy.me(principal);
    return reply
      .code(statusOf(err, 409))
      .send(page("Not sent again", html`<p class="error">${err.message}</p><p><a href="${here}/${delivery_id!}">Back to the delivery</a></p>`, me));
  }
}

/** An answer to a run's question, which resumes it. */
async function answer(s: Services, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Answer from the console's own page."));
  const principal = await actor(s, req);
  if (!principal) return reply.code(401).send(signInPage(SESSION_ENDED));
  const runId = params(req).id!;
  const text = String(formOf(req).answer ?? "").trim();
  const me = await s.tenancy.me(principal);
  try {
    if (text.length === 0 || text.length > 4000) throw new ServiceError("invalid_request", "the answer needs 1 to 4000 characters", "answer");
    const result = await s.runs.answer(principal, runId, text);
    if (result.kind === "denied") return reply.code(result.denial.status).send(page("Not resumed", html`<p class="error">${result.denial.detail}</p>`, me));
    return reply.redirect(`/console/runs/${encodeURIComponent(runId)}`, 303);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return reply.code(actionStatusOf(err)).send(page("Not answered", html`<p class="error">${err.message}</p>`, me));
  }
}

/**
 * A signed-in form post from the console's own origin: `fn` answers a redirect (a string) or a
 * page; a service's refusal is shown on a page with a link `back`.
 */
function signedInAction(s: Services) {
  return (title: string, back: (req: FastifyRequest) => string, fn: Action) => (req: FastifyRequest, reply: FastifyReply) =>
    act(s, { title, back, fn }, req, reply);
}

type Action = (p: Principal, req: FastifyRequest) => Promise<string | Titled>;

async function act(s: Services, action: { title: string; back: (req: FastifyRequest) => string; fn: Action }, req: FastifyRequest, reply: FastifyReply) {
  noStore(reply);
  if (!sameOrigin(req, s.config.baseUrl)) return reply.code(403).send(signInPage("Act from the console's own page."));
  const { principal } = await signedIn(s, req);
  if (!principal) return reply.code(401).send(signInPage(SESSION_ENDED));
  if (principal.passwordChangeRequired) return reply.redirect("/console/password", 303);
  const me = await s.tenancy.me(principal);
  const backLink = html`<p><a href="${action.back(req)}">Back</a></p>`;
  try {
    const done = await action.fn(principal, req);
    if (typeof done === "string") return reply.redirect(done, 303);
    return reply.send(page(done.title, html`${done.body}${backLink}`, me));
  } catch (err) {
    const refusal = refusalOf(err);
    return reply.code(refusal.status).send(page(action.title, html`<p class="error" role="alert">${refusal.message}</p>${backLink}`, me));
  }
}

/** A refusal's status and message; anything else is no refusal and is thrown on. */
function refusalOf(err: unknown): { status: number; message: string } {
  if (err instanceof Refused) return { status: err.status, message: err.message };
  if (err instanceof ServiceError) return { status: actionStatusOf(err), message: err.message };
  throw err;
}
