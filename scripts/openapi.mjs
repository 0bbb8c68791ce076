#!/usr/bin/env node
// Writes the OpenAPI document the service serves at /api/openapi.json to a file (default
// openapi.json), from the built app on a private in-memory store: `npm run openapi [-- out.json]`.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { composeServices } from "../dist/compose.js";
import { loadConfig } from "../dist/config/config.js";
import { createLogger } from "../dist/config/logger.js";
import { systemClock } from "../dist/core/clock.js";
import { randomIds } from "../dist/core/ids.js";
import { Sealer } from "../dist/core/sealer.js";
import { buildApp } from "../dist/http/app.js";
import { Metrics } from "../dist/metrics/metrics.js";
import { openStore } from "../dist/store/store.js";

const out = process.argv[2] ?? "openapi.json";
const config = loadConfig({ SERVICE_RUNNER: "none" });
const log = createLogger("silent");
const store = await openStore({ databaseUrl: "", sqlitePath: ":memory:" });
const sealer = new Sealer("k", { k: randomBytes(32) });
const services = composeServices({ config, store, clock: systemClock, ids: randomIds, metrics: new Metrics({ processMetrics: false }), sealer, log });
const app = await buildApp(services, { logger: log });
await app.ready();
const doc = app.swagger();
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
await app.close();
await store.close();
process.stderr.write(`${out}: ${Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)} operations\n`);
process.exit(0);
