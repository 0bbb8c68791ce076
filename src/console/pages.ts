import type { ConsoleServices } from "./console-services.js";
import type { Principal } from "../tenancy/access.js";
import { html, type Safe } from "./html.js";
import { bar, statusBadge, table } from "./layout.js";

type Titled = { title: string; body: Safe };
const when = (isoText: string | null) => (isoText ? html`<time datetime="${isoText}">${isoText.replace("T", " ").slice(0, 19)}</time>` : "");
const usd = (n: number) => `${n.toFixed(2)} USD`;
const count = (n: number) => String(n);

/** The user's orgs and teams. */
export async function homePage(s: ConsoleServices, p: Principal): Promise<Titled> {
  const me = await s.tenancy.me(p);
  const orgLinks = (id: string) => html`<a href="/console/orgs/${id}/teams">teams</a> · <a href="/console/orgs/${id}/usage">usage this month</a>`;
  const orgs = me.orgs.map((o) => html`<tr><td>${o.name}</td><td>${o.role}</td><td>${orgLinks(o.id)}</td></tr>`);
  // A super-admin sees every org, member or not.
  const all = p.superAdmin
    ? (await s.tenancy.listOrgs(p)).map(
        (o) => html`<tr><td><a href="/console/orgs/${o.id}/teams">${o.name}</a></td><td>${statusBadge(o.status)}</td><td>${orgLinks(o.id)}</td></tr>`,
      )
    : undefined;
  const teams = me.teams.map(
    (t) =>
      html`<tr><td><a href="/console/teams/${t.id}">${t.name}</a></td><td>${t.role}</td><td><a href="/console/teams/${t.id}/runs">runs</a> · <a href="/console/teams/${t.id}/ledger">credential ledger</a></td></tr>`,
  );
  return {
    title: "Your teams",
    body: html`${table(["Team", "Role", ""], teams, "You are not a member of any team yet.")}
<h2>Organisations</h2>${table(["Organisation", "Role", ""], orgs, "You are not a member of any organisation yet.")}${
      all ? html`<h2>All organisations</h2>${table(["Organisation", "Status", ""], all, "No organisation yet: create one with POST /api/admin/orgs.")}` : ""
    }`,
  };
}

/** An org's teams: every team for an org admin or a super-admin, a member's own teams for a member. */
export async function orgTeamsPage(s: ConsoleServices, p: Principal, orgId: string): Promise<Titled> {
  const teams = await s.tenancy.listTeams(p, orgId);
  const name = p.superAdmin ? (await s.tenancy.getOrg(p, orgId)).name : ((await s.tenancy.me(p)).orgs.find((o) => o.id === orgId)?.name ?? orgId);
  const rows = teams.map(
    (t) =>
      html`<tr><td><a href="/console/teams/${t.id}">${t.name}</a></td><td>${statusBadge(t.status)}</td><td>${t.max_concurrent_runs || "none"}</td><td>${t.launch_rate_per_min || "none"}</td><td><a href="/console/teams/${t.id}/runs">runs</a> · <a href="/console/teams/${t.id}/ledger">credential ledger</a></td></tr>`,
  );
  return {
    title: `Teams of ${name}`,
    body: html`<p><a href="/console/orgs/${orgId}/usage">Usage this month</a></p>
${table(["Team", "State", "Max concurrent runs", "Launches per minute", ""], rows, "No team you can see.")}`,
  };
}

/** A team's webhooks with their delivery URL and state. */
export async function teamPage(s: ConsoleServices, p: Principal, teamId: string): Promise<Titled> {
  const team = await s.tenancy.getTeam(p, teamId);
  const hooks = await s.webhooks.list(p, teamId);
  const rows = hooks.map(
    (w) => html`<tr><td><a href="/console/teams/${teamId}/webhooks/${w.id}">${w.name}</a></td><td>${w.provider}</td>
<td>${statusBadge(w.enabled ? "active" : "suspended")}</td><td>${w.sign_mode}</td><td><code>${w.delivery_url}</code></td></tr>`,
  );
  return {
    title: `Team ${team.name}`,
    body: html`<p><a href="/console/teams/${teamId}/runs">Runs</a> · <a href="/console/teams/${teamId}/ledger">Credential ledger</a> · <a href="/console/teams/${teamId}/forge">Forge</a></p>
<h2>Webhooks</h2>${table(["Webhook", "Provider", "State", "Signing", "Delivery URL"], rows, "No webhooks yet.")}
${boardForm(teamId, team.board_mode)}`,
  };
}

const BOARD_MODES = [
  ["off", "off: the issue lanes launch directly"],
  ["track", "track: one card per issue follows its run"],
  ["coordinate", "coordinate: the issue's card is the work, launched by the board"],
] as const;

/** The team's board setting (PATCH /api/teams/{id} board_mode, a team admin's). */
function boardForm(teamId: string, mode: string): Safe {
  const options = BOARD_MODES.map(([v, label]) => html`<option value="${v}"${v === mode ? html` selected` : ""}>${label}</option>`);
  return html`<h2>Board</h2>
<form method="post" action="/console/teams/${teamId}/board">
  <label>Board <select name="board_mode">${options}</select></label>
  <p><button type="submit">Save</button> <span class="muted">team admins; with the board on, an untrusted author's issue waits on it as a needs:approval card</span></p>
</form>`;
}

/** A team's runs, newest first. */
export async function runsPage(s: ConsoleServices, p: Principal, teamId: string): Promise<Titled> {
  const team = await s.tenancy.getTeam(p, teamId);
  const runs = await s.runs.list(p, teamId, { limit: 100 });
  const rows = runs.map(
    (r) => html`<tr><td><a href="/console/runs/${r.id}">${r.id}</a></td><td>${statusBadge(r.status)}</td><td>${r.bot_id}</td><td>${r.source}</td>
<td>${r.attempt}</td><td>${when(r.created_at)}</td><td>${r.failure_code ?? ""}</td></tr>`,
  );
  return { title: `Runs of ${team.name}`, body: table(["Run", "Status", "Bot", "Source", "Attempt", "Created", "Failure"], rows, "No runs yet.") };
}

/** One run with its attempts and its usage. */
export async function runPage(s: ConsoleServices, p: Principal, runId: string): Promise<Titled> {
  const r = await s.runs.get(p, runId);
  const attempts = r.attempts.map(
    (a) =>
      html`<tr><td>${a.number}</td><td>${statusBadge(a.status)}</td><td>${when(a.started_at)}</td><td>${when(a.finished_at)}</td><td>${a.failure_code ?? ""}</td></tr>`,
  );
  const latest = r.attempts.at(-1)?.number;
  const log = latest === undefined ? undefined : await s.runLogs.slice(r.id, latest, 0);
  const live = r.status === "queued" || r.status === "running";
  const links = runLinks(r);
  const output =
    latest === undefined
      ? html`<p class="muted">No attempt has started yet.</p>`
      : html`<p class="muted">Attempt ${latest}${log && !log.complete && !live ? html` · the first 256 KiB; <code>remote runs logs ${r.id}</code> prints all of it` : ""}</p>`;
  return {
    title: `Run ${r.id}`,
    body: html`<p>${statusBadge(r.status)} <strong>${r.bot_id}</strong> · source ${r.source} · attempt ${r.attempt}${r.failure_detail ? html` · <span class="error">${r.failure_detail}</span>` : ""}</p>
<p class="muted">${links.flatMap((l, i) => (i === 0 ? [l] : [html` · `, l]))}</p>
${r.waiting_for_answer && r.question ? questionForm(r.id, r.question) : ""}
${runActions(r.id, r.status, r.waiting_for_answer === true)}
<h2>Output</h2>${output}
<p id="run-live" class="muted" aria-live="polite">${live ? "Reload the page to see more, or allow scripts to follow it live." : ""}</p>
<pre id="run-log" class="log" tabindex="0" data-live="${live ? "true" : "false"}" data-stream="/console/runs/${r.id}/stream">${log?.text ?? ""}</pre>
<h2>Attempts</h2>${table(["#", "Status", "Started", "Finished", "Failure"], attempts, "Not started yet.")}
<h2>Usage</h2><p>${usd(r.usage.cost_usd)} · ${r.usage.input_tokens} input tokens · ${r.usage.output_tokens} output tokens</p>
<script src="/console/run.js" defer></script>`,
  };
}

/** Where a run came from: its team, its pull or merge request, its delivery, its repository. */
function runLinks(r: Awaited<ReturnType<ConsoleServices["runs"]["get"]>>): Safe[] {
  const forgeLink = typeof r.vars.pr_url === "string" && /^https?:\/\//.test(r.vars.pr_url) ? r.vars.pr_url : undefined;
  return [
    html`Team <a href="/console/teams/${r.team_id}/runs">${r.team_id}</a>`,
    ...(forgeLink ? [html`<a href="${forgeLink}" rel="noreferrer">the pull or merge request</a>`] : []),
    ...(r.delivery_id && r.webhook_id
      ? [html`delivery <a href="/console/teams/${r.team_id}/webhooks/${r.webhook_id}/deliveries/${r.delivery_id}">${r.delivery_id}</a>`]
      : []),
    ...(r.repo_url ? [html`${r.repo_url}`] : []),
  ];
}

/** Cancel (a run not yet finished, or one a retry may still resume) and resume (a failed run not waiting on a question). */
function runActions(runId: string, status: string, waiting: boolean): Safe | "" {
  const cancel = status === "queued" || status === "running" || status === "failed_resumable";
  const resume = (status === "failed" || status === "failed_resumable") && !waiting;
  if (!cancel && !resume) return "";
  return html`<div class="actions">${
    resume ? html`<form method="post" action="/console/runs/${runId}/resume"><button type="submit">Resume</button></form>` : ""
  }${cancel ? html`<form method="post" action="/console/runs/${runId}/cancel"><button type="submit" class="danger">Cancel the run</button></form>` : ""}</div>`;
}

/** The question a run waits on, with a form that answers it (the run resumes through the gate). */
function questionForm(runId: string, q: { text: string; choices?: string[] }): ReturnType<typeof html> {
  const input = q.choices
    ? html`<select name="answer" required>${q.choices.map((c) => html`<option value="${c}">${c}</option>`)}</select>`
    : html`<textarea name="answer" rows="3" maxlength="4000" required></textarea>`;
  return html`<section class="question" aria-labelledby="question-h"><h2 id="question-h">The bot asks</h2>
<p>${q.text}</p>
<form method="post" action="/console/runs/${runId}/answer"><label>Answer ${input}</label><p><button type="submit">Answer and resume</button></p></form></section>`;
}

/** An org's month against its caps. */
export async function usagePage(s: ConsoleServices, p: Principal, orgId: string): Promise<Titled> {
  const u = await s.usage.orgUsage(p, orgId, "org");
  const teams = u.teams.map(
    (t) => html`<tr><td>${t.name}</td><td>${t.active_runs}</td><td>${t.max_concurrent_runs || "none"}</td><td>${t.launch_rate_per_min || "none"}</td></tr>`,
  );
  return {
    title: `${u.org.name}: usage in ${u.month}`,
    body: html`${bar("Spend", u.cost_usd_this_month, u.monthly_cost_cap_usd, usd)}${bar("Runs", u.runs_this_month, u.monthly_run_quota, count)}
<p class="muted">Webhook calls this month: ${u.webhook_calls_this_month} · active runs: ${u.active_runs}</p>
<h2>Per day</h2>${dailyTable(await s.usage.orgDaily(p, orgId))}
<h2>Teams</h2>${table(["Team", "Active runs", "Max concurrent runs", "Launches per minute"], teams, "No teams.")}`,
  };
}

/** Runs and spend each day of the month so far, each beside a bar scaled to the month's busiest day. */
function dailyTable(d: { month: string; days: { date: string; runs: number; cost_usd: number }[] }): Safe {
  const maxRuns = Math.max(0, ...d.days.map((x) => x.runs));
  const maxCost = Math.max(0, ...d.days.map((x) => x.cost_usd));
  const fill = (v: number, max: number) =>
    html`<div class="bar mini" aria-hidden="true"><span class="w${max > 0 ? Math.round((v / max) * 100) : 0}"></span></div>`;
  const rows = d.days.map(
    (x) =>
      html`<tr><td><time datetime="${x.date}">${x.date}</time></td><td class="num">${x.runs}</td><td>${fill(x.runs, maxRuns)}</td><td class="num">${usd(x.cost_usd)}</td><td>${fill(x.cost_usd, maxCost)}</td></tr>`,
  );
  return table(["Day", "Runs", "", "Spend", ""], rows, "No day of the month yet.");
}

/** The team's share of the credential ledger for a month. */
export async function ledgerPage(s: ConsoleServices, p: Principal, teamId: string, month: string | undefined): Promise<Titled> {
  const team = await s.tenancy.getTeam(p, teamId);
  const l = await s.usage.teamCredentials(p, teamId, { month: month || undefined });
  const rows = l.credentials.map(
    (c) =>
      html`<tr><td><code>${c.fingerprint.slice(0, 12)}…</code></td><td>${c.provider}</td><td>${c.tier}</td><td>${usd(c.metered_usd)}</td><td>${usd(c.estimated_usd)}</td><td>${c.attempts}</td></tr>`,
  );
  return {
    title: `Credential ledger of ${team.name}, ${l.month}`,
    body: html`<form class="filters" method="get"><label>Month <input name="month" value="${l.month}" pattern="\\d{4}-\\d{2}" inputmode="numeric"></label><button type="submit">Show</button></form>
${table(["Key", "Provider", "Tier", "Metered", "Estimated", "Attempts"], rows, "Nothing charged to a key this month.")}`,
  };
}
