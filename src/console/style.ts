/** A usage bar's fill in whole percents: a class each, as the page's policy allows no inline style. */
const BAR_WIDTHS = Array.from({ length: 101 }, (_, i) => `.bar > span.w${i} { width: ${i}%; }`).join("\n");

/** The console's one stylesheet: system fonts, AA contrast, status colours with text beside them. */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --accent: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header nav { flex: 1; display: flex; gap: 1rem; }
main { padding: 1rem 1.2rem; max-width: 80rem; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #ffbf47; outline-offset: 1px; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; }
.muted { color: var(--muted); }
.status { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-weight: 600; font-size: .85rem; }
.s-launched, .s-succeeded, .s-active, .s-healthy { background: #dafbe1; color: #0f5323; }
.s-filtered, .s-duplicate, .s-cancelled, .s-accepted, .s-queued { background: #eaeef2; color: #24292f; }
.s-invalid, .s-launch_error, .s-failed, .s-suspended, .s-broken { background: #ffebe9; color: #82071e; }
.s-rate_limited, .s-quota_exceeded, .s-failed_resumable, .s-running, .s-read-only, .s-degraded { background: #fff8c5; color: #4d2d00; }
form.filters { display: flex; gap: .8rem; align-items: end; flex-wrap: wrap; margin: .5rem 0; }
label { display: flex; flex-direction: column; font-size: .85rem; gap: .2rem; }
input, select, button { font: inherit; padding: .3rem .5rem; }
button { background: var(--accent); color: #fff; border: 0; border-radius: .3rem; cursor: pointer; }
.bar { background: #eaeef2; border-radius: .3rem; height: 1.1rem; width: 24rem; max-width: 100%; overflow: hidden; }
.bar > span { display: block; height: 100%; background: var(--accent); }
.bar.over > span { background: #cf222e; }
.bar.mini { height: .8rem; width: 12rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.error { color: #82071e; }
.actions { display: flex; gap: .8rem; margin: .5rem 0; }
button.danger { background: #cf222e; }
.secret { font-size: 1rem; background: #f6f8fa; border: 1px solid var(--line); padding: .3rem .5rem; word-break: break-all; }
code { font-size: .9em; }
.question { border: 2px solid #bf8700; border-radius: .4rem; padding: .2rem 1rem; margin: 1rem 0; background: #fff8c5; }
textarea { font: inherit; padding: .3rem .5rem; width: 100%; max-width: 40rem; }
pre.log { background: #f6f8fa; border: 1px solid var(--line); padding: .6rem; max-height: 36rem; overflow: auto; white-space: pre-wrap; word-break: break-all; font-size: .85rem; }
${BAR_WIDTHS}
`;
