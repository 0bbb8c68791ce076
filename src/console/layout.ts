import { html, type Safe } from "./html.js";

/** A console page: a header with the signed-in user and the sign-out form, then `body`. */
export function page(title: string, body: Safe, user?: { login: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Bot gateway</title>
<link rel="stylesheet" href="/console/style.css">
</head>
<body>
<header>
  <nav aria-label="Main"><a href="/console">Bot gateway</a></nav>
  ${
    user
      ? html`<span class="muted">Signed in as <strong>${user.login}</strong></span>
  <a href="/console/password">Change password</a>
  <form method="post" action="/console/sign-out"><button type="submit">Sign out</button></form>`
      : ""
  }
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.text;
}

export const statusBadge = (status: string) => html`<span class="status s-${status}">${status.replaceAll("_", " ")}</span>`;

/** A table of `rows`, or a line saying there is nothing to show. */
export function table(headers: string[], rows: Safe[], empty: string): Safe {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** A bar of `used` against `cap` (0: no cap), with the figures in text beside it. */
export function bar(label: string, used: number, cap: number, unit: (n: number) => string): Safe {
  if (cap <= 0) return html`<p><strong>${label}</strong>: ${unit(used)} <span class="muted">(no cap)</span></p>`;
  const pct = Math.min(100, Math.round((used / cap) * 100));
  return html`<p><strong>${label}</strong>: ${unit(used)} of ${unit(cap)} (${pct} %)</p>
<div class="bar${used >= cap ? " over" : ""}" role="meter" aria-label="${label}" aria-valuemin="0" aria-valuemax="${cap}" aria-valuenow="${used}"><span class="w${pct}"></span></div>`;
}
