import type { ConsoleServices } from "./console-services.js";
import type { Principal } from "../tenancy/access.js";
import { html, type Safe } from "./html.js";
import { statusBadge, table } from "./layout.js";

type Titled = { title: string; body: Safe };

/** A team's forge connections and the repositories provisioned through them, from the store alone (no forge call). */
export async function forgePage(s: ConsoleServices, p: Principal, teamId: string): Promise<Titled> {
  const team = await s.tenancy.getTeam(p, teamId);
  const [connections, repoBots] = await Promise.all([s.connections.list(p, teamId), s.repoBots.list(p, teamId)]);
  const connRows = connections.map(
    (c) => html`<tr><td><code>${c.id}</code></td><td>${c.provider}</td><td>${c.base_url ?? "public"}</td><td>${c.auth === "app" ? "GitHub App" : "token"}</td>
<td>${c.bot_login}</td><td>${c.webhook_base_url ?? html`<span class="muted">service base URL</span>`}</td></tr>`,
  );
  const repoRows = repoBots.map(
    (r) => html`<tr><td><a href="/console/teams/${teamId}/forge/repo-bots/${r.id}">${r.repo}</a></td>
<td>${r.webhook_id ? html`<a href="/console/teams/${teamId}/webhooks/${r.webhook_id}">deliveries</a>` : html`<span class="muted">unfinished</span>`}</td>
<td>${r.hook_id ?? html`<span class="muted">none</span>`}</td><td>${r.hook_url ? html`<code>${r.hook_url}</code>` : ""}</td>
<td>${r.security_read.enabled ? html`minted, expires ${r.security_read.expires_at ?? "?"}` : html`<span class="muted">off</span>`}</td></tr>`,
  );
  return {
    title: `Forge of ${team.name}`,
    body: html`<p><a href="/console/teams/${teamId}">Webhooks</a></p>
<h2>Connections</h2>${table(["Connection", "Forge", "Instance", "Credential", "Bot login", "Webhook base"], connRows, "No forge connected yet.")}
<h2>Provisioned repositories</h2>
<p class="muted">Each repository's page reads its hook back from the forge.</p>
${table(["Repository", "Webhook", "Hook", "Hook address", "Security-read token"], repoRows, "No repository provisioned yet.")}`,
  };
}

/** One provisioned repository's hook health, read back from the forge now. */
export async function repoBotHealthPage(s: ConsoleServices, p: Principal, teamId: string, repoBotId: string): Promise<Titled> {
  const r = await s.repoBotHealth.check(p, teamId, repoBotId);
  const settings = (await s.repoBots.list(p, teamId)).find((b) => b.id === repoBotId);
  const problems = r.problems.map((x) => html`<tr><td><code>${x.code}</code></td><td>${x.detail}</td></tr>`);
  const d = r.deliveries;
  return {
    title: `Hook of ${r.repo}`,
    body: html`<p>${statusBadge(r.status)} · ${r.provider} · checked ${r.checked_at ?? ""}</p>
<p class="muted">Hook ${r.hook_id ?? "none"}${r.hook_url ? html` · <code>${r.hook_url}</code>` : ""}${r.hook_written_at ? html` · secret written ${r.hook_written_at}` : ""}</p>
<h2>Problems</h2>${table(["Code", "What and how to fix it"], problems, "None: the forge holds the hook as provisioned.")}
<h2>Deliveries</h2>
<p>Last received: ${r.received.last_delivery_at ?? "never"} · refused unproven since the secret was written: ${r.received.refused_since_written}</p>
${d ? html`<p>On the forge: ${d.failed} of the latest ${d.checked} failed${d.latest_failure ? html` (latest ${d.latest_failure.status_code} at ${d.latest_failure.delivered_at})` : ""}</p>` : ""}
<p class="muted">A team admin repairs the hook with <code>remote repo-bots repair ${teamId} ${repoBotId}</code> or <code>POST /api/teams/${teamId}/forge/repo-bots/${repoBotId}/repair</code>.</p>
${settings ? gateForm(teamId, repoBotId, settings) : ""}`,
  };
}

/** The repository's CI gate settings, set as a provision sets them (POST …/forge/repo-bots, a team admin's). */
function gateForm(teamId: string, repoBotId: string, g: { gate_context: string | null; review_after_gate: boolean; auto_fix_on_gate_failure: boolean }): Safe {
  const box = (name: string, on: boolean, label: string) => html`<label><input type="checkbox" name="${name}"${on ? html` checked` : ""}> ${label}</label>`;
  return html`<h2>CI gate</h2>
<form method="post" action="/console/teams/${teamId}/forge/repo-bots/${repoBotId}/gate">
  <label>Gate <input name="gate_context" value="${g.gate_context ?? ""}" maxlength="200" placeholder="ci/test"></label>
  <p class="muted">A check run or commit status context on GitHub, a pipeline (or a commit status of that name) on GitLab, a commit status on Forgejo. Empty: no gate lanes.</p>
  ${box("review_after_gate", g.review_after_gate, "Review after the gate: the automatic review waits for the gate to pass on the head, instead of launching on open and push")}
  ${box("auto_fix_on_gate_failure", g.auto_fix_on_gate_failure, "Auto-fix: the gate failing on the head launches the branch-improvement bot (at most 3 in a row; needs improve in the bots)")}
  <p><button type="submit">Save</button> <span class="muted">team admins; saved as a provision of the repository, which writes the hook again only if its address moved</span></p>
</form>`;
}
