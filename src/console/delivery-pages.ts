import type { ConsoleServices } from "./console-services.js";
import type { Principal } from "../tenancy/access.js";
import { html, type Safe } from "./html.js";
import { statusBadge, table } from "./layout.js";
import { ROTATION_OVERLAP_MAX_SECONDS } from "../webhooks/webhook-service.js";
import type { PingResult } from "../deliveries/ping.js";

type Titled = { title: string; body: Safe };
const when = (isoText: string | null) => (isoText ? html`<time datetime="${isoText}">${isoText.replace("T", " ").slice(0, 19)}</time>` : "");

const SINCE: Record<string, number> = { hour: 3600_000, day: 86_400_000, week: 7 * 86_400_000 };
const STATUSES = ["accepted", "launched", "duplicate", "filtered", "invalid", "rate_limited", "quota_exceeded", "launch_error"];
const EVENTS = ["pull_request", "merge_request", "note", "pull_request_comment", "pull_request_review_comment", "issues", "generic", "ping", "push", "other"];
const PAGE = 50;

/** The page's filters from its query: a value outside the known ones filters nothing. */
function deliveryFilters(q: Record<string, string | undefined>, now: number) {
  return {
    status: q.status && STATUSES.includes(q.status) ? q.status : undefined,
    event: q.event && EVENTS.includes(q.event) ? q.event : undefined,
    since: q.since && SINCE[q.since] ? now - SINCE[q.since]! : undefined,
  };
}

/** A webhook's delivery log, newest first, a page at a time, filtered by status, event and time in the store. */
export async function deliveriesPage(
  s: ConsoleServices,
  p: Principal,
  teamId: string,
  webhookId: string,
  q: Record<string, string | undefined>,
  now: number,
): Promise<Titled> {
  const hook = await s.webhooks.get(p, teamId, webhookId);
  const filters = deliveryFilters(q, now);
  const got = await s.deliveries.page(p, teamId, webhookId, { limit: PAGE, after: q.after || undefined, before: q.before || undefined, ...filters });
  const option = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}"${value === (selected ?? "") ? html` selected` : ""}>${label}</option>`;
  const base = `/console/teams/${teamId}/webhooks/${webhookId}`;
  const rows = got.deliveries.map(
    (
      d,
    ) => html`<tr><td><a href="${base}/deliveries/${d.id}">${when(d.created_at)}</a></td><td>${statusBadge(d.status)}</td><td>${d.event_kind ?? ""}${d.event_action ? html` <span class="muted">${d.event_action}</span>` : ""}</td>
<td>${d.subject_id ?? ""}</td><td>${d.bot_id ?? ""}</td><td>${d.reason ?? ""}${d.denial_reason ? html` <code>${d.denial_reason}</code>` : ""}</td>
<td>${d.run_id ? html`<a href="/console/runs/${d.run_id}">${d.run_id}</a>` : ""}</td></tr>`,
  );
  const keep = new URLSearchParams(Object.entries({ status: q.status, event: q.event, since: q.since }).filter((e): e is [string, string] => !!e[1]));
  const link = (cursor: "after" | "before", id: string) => `${base}?${new URLSearchParams([...keep, [cursor, id]]).toString()}`;
  // Reading newer pages, more lie ahead when has_more says so; reading older ones, a newer page exists once we left the first.
  const readingNewer = q.after !== undefined && q.after !== "";
  const newer = got.after && (readingNewer ? got.has_more : q.before) ? html`<a href="${link("after", got.after)}" rel="prev">Newer</a>` : "";
  const older = got.before && (readingNewer || got.has_more) ? html`<a href="${link("before", got.before)}" rel="next">Older</a>` : "";
  return {
    title: `Deliveries of ${hook.name}`,
    body: html`<p class="muted">${hook.provider} · <code>${hook.delivery_url}</code></p>
<form class="filters" method="get">
  <label>Status <select name="status">${option("", "any", q.status)}${STATUSES.map((v) => option(v, v.replaceAll("_", " "), q.status))}</select></label>
  <label>Event <select name="event">${option("", "any", q.event)}${EVENTS.map((v) => option(v, v, q.event))}</select></label>
  <label>Since <select name="since">${option("", "any time", q.since)}${option("hour", "last hour", q.since)}${option("day", "last day", q.since)}${option("week", "last week", q.since)}</select></label>
  <button type="submit">Filter</button>
</form>
${table(["Received", "Status", "Event", "Subject", "Bot", "Reason", "Run"], rows, "No delivery matches.")}
<nav class="pages" aria-label="Pages">${newer} ${older}</nav>
<h2>Test delivery</h2>
<form method="post" action="${base}/ping">
  ${hook.sign_mode === "token" ? html`<label>Token <input name="token" type="password" autocomplete="off" required placeholder="wh_…"></label>` : ""}
  <p><button type="submit">Send a test delivery</button> <span class="muted">team admins; the forge's ping (or test push), signed, sent over the network to the delivery URL above, as the forge would send it</span></p>
</form>
<h2>Rotate the token</h2>
<form method="post" action="${base}/rotate">
  <label>Overlap in seconds (the old token and secret keep working this long) <input name="overlap_seconds" type="number" min="0" max="${ROTATION_OVERLAP_MAX_SECONDS}" step="1" value="0" inputmode="numeric"></label>
  <p><button type="submit" class="danger">Rotate</button> <span class="muted">team admins; the new token is shown once</span></p>
</form>`,
  };
}

/** One delivery: its row, the steps it passed, the run it started. */
export async function deliveryPage(s: ConsoleServices, p: Principal, teamId: string, webhookId: string, deliveryId: string): Promise<Titled> {
  const hook = await s.webhooks.get(p, teamId, webhookId);
  const got = await s.deliveries.show(p, teamId, webhookId, deliveryId);
  const d = got.delivery;
  const steps = got.trace.steps.map(
    (t) =>
      html`<tr${t.result === "decided" ? html` class="decided"` : ""}><td>${t.step}</td><td>${t.result.replaceAll("_", " ")}</td><td>${t.detail ?? ""}</td></tr>`,
  );
  const link = (id: string) => html`<a href="/console/teams/${teamId}/webhooks/${webhookId}/deliveries/${id}">${id}</a>`;
  const facts: [string, string | Safe | null][] = [
    ["Status", d.status],
    ["Received", d.created_at],
    ["Event", [d.event_kind, d.event_action].filter(Boolean).join(" · ") || null],
    ["Project", d.project_path],
    ["Subject", d.subject_id],
    ["Bot", d.bot_id],
    ["Reason", d.reason],
    ["Denial", d.denial_reason],
    ["Refusal", d.refusal_code],
    ["Forge delivery id", d.forge_delivery_id],
    ["Idempotency key", d.idempotency_key],
    ["Payload SHA-256", d.payload_sha256],
    ["Source IP", d.source_ip],
    ["Sends again", got.redelivery_of ? link(got.redelivery_of) : null],
    ["Proof", got.redelivery ? got.redelivery.proof.replaceAll("_", " ") : null],
    ["Sent again as", got.redelivered_as.length > 0 ? html`${got.redelivered_as.map((id, i) => html`${i > 0 ? ", " : ""}${link(id)}`)}` : null],
  ];
  return {
    title: `Delivery ${d.id}`,
    body: html`<p class="muted"><a href="/console/teams/${teamId}/webhooks/${webhookId}">Deliveries of ${hook.name}</a> · ${hook.provider}</p>
<dl>${facts.filter(([, v]) => v).map(([k, v]) => html`<dt>${k}</dt><dd>${k === "Status" ? statusBadge(String(v)) : v!}</dd>`)}</dl>
${requestSection(got, `/console/teams/${teamId}/webhooks/${webhookId}/deliveries/${d.id}/redeliver`)}
${got.run ? html`<p>Run <a href="/console/runs/${got.run.id}">${got.run.id}</a> ${statusBadge(got.run.status)}</p>` : ""}
<h2>Decision</h2>
<p>Decided by <strong>${got.trace.decided_by}</strong>.</p>
${table(["Step", "Result", "Detail"], steps, "")}`,
  };
}

type Shown = Awaited<ReturnType<ConsoleServices["deliveries"]["show"]>>;

/** The request as it arrived (redacted), and the form that sends it again. */
function requestSection(got: Shown, action: string): Safe {
  const r = got.request;
  if (!r) return html`<h2>Request</h2><p class="muted">${got.request_missing ?? ""}</p>`;
  const headers = Object.entries(r.headers).map(
    ([k, v]) => html`<tr><td><code>${k}</code></td><td><code>${Array.isArray(v) ? v.join(", ") : v}</code></td></tr>`,
  );
  const body = !r.body_kept
    ? html`<p class="muted">The body (${r.body_bytes} bytes) was larger than the cap and was not kept.</p>`
    : html`<pre class="payload">${r.body_encoding === "utf8" && r.body ? pretty(r.body) : (r.body ?? "")}</pre>`;
  const form = r.body_kept
    ? html`<form method="post" action="${action}">
  <label><input type="checkbox" name="fresh_key"> under a fresh idempotency key (launch even if this event launched already)</label>
  <p><button type="submit">Send again</button> <span class="muted">team admins; through the whole pipeline, against today's configuration</span></p>
</form>`
    : "";
  return html`<h2>Request</h2>
<p class="muted">Kept until ${r.expires_at} · ${r.body_bytes} bytes</p>
${table(["Header", "Value"], headers, "No headers.")}
${body}
${form}`;
}

/** JSON indented for reading; any other text as it is. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A test delivery that did not land, or landed with something to check: where it went, what came
 * back (or why nothing did), and the hint. One that landed cleanly opens its delivery instead.
 */
export function pingResultPage(teamId: string, webhookId: string, r: PingResult): Titled {
  const base = `/console/teams/${teamId}/webhooks/${webhookId}`;
  const body = r.answer?.body ?? {};
  const said = [body.status ?? body.error, body.reason ?? body.detail ?? body.message].filter((x) => typeof x === "string").join(": ");
  const back = r.delivery_id
    ? html`<a href="${base}/deliveries/${r.delivery_id}">The delivery</a> · <a href="${base}">the delivery log</a>`
    : html`<a href="${base}">Back to the deliveries</a>`;
  return {
    title: r.reached ? "Test delivery landed" : "Test delivery did not land",
    body: html`<p>${r.event}, signed, sent to <code>${r.url}</code></p>
${r.unreachable ? html`<p class="error">Unreachable (${r.unreachable.cause}): ${r.unreachable.message}</p>` : ""}
${r.answer ? html`<p${r.reached ? "" : html` class="error"`}>Answered ${r.answer.status}${said ? html`: ${said}` : ""}</p>` : ""}
${r.answer?.text ? html`<pre>${r.answer.text}</pre>` : ""}
${r.hint ? html`<p role="alert"><strong>Check:</strong> ${r.hint}</p>` : ""}
<p>${back}</p>`,
  };
}
