// What one answered request's bookkeeping costs (request id, access line, histogram): the work
// the delivery fast path added per request, measured without HTTP. After `npm run build`:
//   node bench/request-record-cost.mjs [requests] > /dev/null      (the log goes to stdout, as the service's does)
import { performance } from "node:perf_hooks";
import { createLogger } from "../dist/config/logger.js";
import { accessLogger, recordRequest, requestIdOf } from "../dist/http/request-record.js";
import { Metrics } from "../dist/metrics/metrics.js";

const n = Number(process.argv[2] ?? 200_000);
const log = accessLogger(createLogger(process.env.LEVEL ?? "info"));
const metrics = new Metrics({ processMetrics: false });
const statuses = [200, 200, 200, 202, 401];

function once(i) {
  const started = performance.now();
  const id = requestIdOf(i % 2 === 0 ? undefined : "forge-delivery-1234");
  recordRequest(log, metrics, {
    requestId: id,
    method: "POST",
    route: "/api/webhooks/:provider/:id",
    status: statuses[i % 5],
    durationMs: performance.now() - started,
  });
}

for (let i = 0; i < 20_000; i++) once(i); // warm-up
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) once(i);
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stderr.write(`${n} requests: ${((wall * 1000) / n).toFixed(2)} µs wall, ${((cpu.user + cpu.system) / n).toFixed(2)} µs CPU each (user+system)\n`);
