// bench/RESULTS.md (one markdown table) and bench/results.json from the run's results.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const ms = (us) => (us == null ? "—" : (us / 1000).toFixed(us < 10_000 ? 2 : 1));
const mb = (b) => (b ? `${(b / 1048576).toFixed(0)} MB` : "—");
const int = (n) => (n == null ? "—" : Math.round(n).toLocaleString("en-US"));
const met = (m) => (m === true ? "yes" : m === false ? "**no**" : "—");

export function renderMarkdown(run) {
  const m = run.meta;
  const lines = [
    "# Benchmark results",
    "",
    `Run ${m.date} on ${m.nproc} cores (${m.cpu}), ${m.memGiB} GiB RAM, Node ${m.node}, ${m.wrk}, Linux ${m.kernel}.`,
    `Load: wrk, ${m.threads} threads, ${m.connections} connections, ${m.seconds} s per throughput scenario after ${m.warmup} s of warm-up,` +
      ` fixed-rate runs ${m.fixedSeconds} s at ${m.rate} requests/s; the load generator shares the machine. Command: \`${m.command}\`.`,
    `Load average before the run: ${m.loadavg} (1, 5, 15 min). Durability as shipped: SQLite WAL with synchronous=NORMAL (the default), PostgreSQL synchronous_commit=on${m.postgres ? "" : " (not run)"}; runs are not executed (SERVICE_RUNNER=none), and the API's rate limit is off (SERVICE_API_RATE_LIMIT=0).`,
    `Bodies: GitHub's \`pull_request.opened\` example from @octokit/webhooks-examples (${m.bodyBytes} bytes), signed per request in wrk's Lua (HMAC-SHA256 midstate), each with a new head sha unless it is a replay.`,
    "",
    "| scenario | store | target | req/s | p50 ms | p99 ms | p99.9 ms | peak RSS | × bare | goal | met? |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
  ];
  for (const r of run.rows) {
    if (r.skipped) {
      lines.push(`| ${r.name} | ${r.store} | ${r.target} | not run | | | | | | ${r.goal ?? "—"} | — |`);
      continue;
    }
    lines.push(
      `| ${r.name} | ${r.store} | ${r.target} | ${int(r.rps)} | ${ms(r.latency?.p50)} | ${ms(r.latency?.p99)} | ${ms(r.latency?.p999)} | ${mb(r.rss)} | ${r.ratio == null ? "—" : r.ratio.toFixed(2)} | ${r.goal ?? "—"} | ${met(r.met)} |`,
    );
  }
  lines.push("", "## Notes", "");
  for (const r of run.rows) {
    const bits = [];
    if (r.skipped) bits.push(`not run: ${r.skipped}`);
    if (r.probe) bits.push(`probe: ${r.probe}`);
    if (r.outcomes && Object.keys(r.outcomes).length) {
      bits.push(
        `outcomes (/metrics delta): ${Object.entries(r.outcomes)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
      );
    }
    if (r.requests != null) bits.push(`${int(r.requests)} requests, ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
    if (r.achievedRate != null) bits.push(`achieved ${r.achievedRate.toFixed(0)} requests/s of ${r.rateTarget}`);
    if (r.bareAround) bits.push(`bare ceiling just before and after: ${r.bareAround.map(int).join(" and ")} req/s (× bare is to their mean)`);
    if (r.rssPerProcess?.length > 1) bits.push(`RSS per process ${r.rssPerProcess.map(mb).join(" + ")}`);
    if (r.note) bits.push(r.note);
    if (bits.length) lines.push(`- **${r.name}** (${r.store}): ${bits.join("; ")}.`);
  }
  for (const n of run.notes) lines.push(`- ${n}`);
  lines.push(
    "",
    "Method: req/s is requests completed ÷ wall time of the measured window; latency is wrk's (from the send to the last byte of the answer, no coordinated-omission correction: wrk2 is not in Debian, so the fixed rate is paced by a per-thread slot schedule in `bench/lua/delivery.lua` and the achieved rate is reported). With 2 processes two wrk instances run at once and the table shows the worse percentile of the two. Peak RSS resets each process's high-water mark (`/proc/PID/clear_refs`) before the window and reads VmHWM after, and sums over processes. × bare divides by the bare node:http server's req/s measured in the same run with the same requests: for the SQLite scenarios, by the mean of the bare server's runs just before and just after the scenario (the one after is the next scenario's before); elsewhere by the ceiling's first row.",
    "",
  );
  return lines.join("\n");
}

export function writeReports(dir, run) {
  writeFileSync(`${dir}/results.json`, `${JSON.stringify(run, null, 2)}\n`);
  // The profile analysis is kept by hand in ANALYSIS.md and travels with every run's table.
  const analysis = existsSync(`${dir}/ANALYSIS.md`) ? `\n${readFileSync(`${dir}/ANALYSIS.md`, "utf8")}` : "";
  writeFileSync(`${dir}/RESULTS.md`, renderMarkdown(run) + analysis);
}
