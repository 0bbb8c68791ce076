import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tracesProtocol, tracingOffReason } from "./tracing.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "tracing-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A resolve hook that writes each `@opentelemetry` module a process resolves to a file, and a
 * process that loads the whole service (dist/compose.js, as main does) then starts tracing.
 */
const HOOK = `
import { appendFileSync } from "node:fs";
let file;
export async function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes("@opentelemetry")) appendFileSync(file, resolved.url + "\\n");
  return resolved;
}`;
const MAIN = `
import { register } from "node:module";
import { pathToFileURL } from "node:url";
register(pathToFileURL(process.env.HOOK_FILE).href, { data: { file: process.env.SEEN_FILE } });
await import(pathToFileURL(process.env.ROOT + "/dist/compose.js").href);
const tracing = await import(pathToFileURL(process.env.ROOT + "/dist/core/tracing.js").href);
const started = await tracing.startTracing({ name: "t", version: "0" });
await tracing.stopTracing();
process.stdout.write(JSON.stringify(started));`;

function run(otel: Record<string, string>, name: string): { started: { on: boolean }; seen: string[] } {
  const hookFile = path.join(dir, "hook.mjs");
  const seenFile = path.join(dir, `${name}.txt`);
  writeFileSync(hookFile, HOOK);
  writeFileSync(seenFile, "");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ROOT, HOOK_FILE: hookFile, SEEN_FILE: seenFile, ...otel };
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", MAIN], { env, encoding: "utf8" });
  return { started: JSON.parse(out), seen: readFileSync(seenFile, "utf8").split("\n").filter(Boolean) };
}

describe("tracing is off unless asked for", () => {
  it("with no OTEL_* variable set, the service loads no OpenTelemetry module", () => {
    const { started, seen } = run({}, "unset");
    expect(started).toEqual({ on: false, reason: "no OTLP endpoint is set" });
    expect(seen).toEqual([]);
  });

  it("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none keep it off with an endpoint set", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };
    expect(run({ ...endpoint, OTEL_SDK_DISABLED: "true" }, "disabled").seen).toEqual([]);
    expect(run({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }, "none").seen).toEqual([]);
  });

  it("with an endpoint set, the SDK is loaded (the check above would see it)", () => {
    const { started, seen } = run({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/v1/traces" }, "on");
    expect(started).toEqual({ on: true, protocol: "http/json", warnings: [] });
    expect(seen.some((url) => url.includes("@opentelemetry/sdk-trace-node"))).toBe(true);
    expect(seen.some((url) => url.includes("@opentelemetry/exporter-trace-otlp-http"))).toBe(true);
    expect(seen.some((url) => url.includes("@opentelemetry/exporter-trace-otlp-proto"))).toBe(false);
  });

  it("OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf loads the protobuf exporter alone; gRPC is a start-up warning, not silence", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };
    const proto = run({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }, "proto");
    expect(proto.started).toEqual({ on: true, protocol: "http/protobuf", warnings: [] });
    expect(proto.seen.some((url) => url.includes("@opentelemetry/exporter-trace-otlp-proto"))).toBe(true);
    expect(proto.seen.some((url) => url.includes("@opentelemetry/exporter-trace-otlp-http"))).toBe(false);
    const grpc = run({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "grpc");
    expect(grpc.started).toMatchObject({ on: true, protocol: "http/json" });
    expect((grpc.started as unknown as { warnings: string[] }).warnings).toEqual([
      expect.stringContaining("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: gRPC is not supported"),
    ]);
  });

  it("reads the protocol as the specification does: the traces' own variable first", () => {
    expect(tracesProtocol({})).toEqual({ protocol: "http/json", warnings: [] });
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: " HTTP/PROTOBUF " })).toEqual({ protocol: "http/protobuf", warnings: [] });
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toEqual({
      protocol: "http/protobuf",
      warnings: [],
    });
    const odd = tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml" });
    expect(odd.protocol).toBe("http/json");
    expect(odd.warnings).toEqual([
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/xml: it is not an OTLP protocol this service speaks (http/protobuf or http/json); traces are sent as OTLP/HTTP JSON (http/json) to the same endpoint",
    ]);
  });

  it("reads the variables as the specification does", () => {
    expect(tracingOffReason({})).toBe("no OTLP endpoint is set");
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe("no OTLP endpoint is set");
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBeUndefined();
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" })).toBe("OTEL_SDK_DISABLED=true");
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "false" })).toBeUndefined();
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe("OTEL_TRACES_EXPORTER=none");
    expect(tracingOffReason({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "otlp" })).toBeUndefined();
  });
});
