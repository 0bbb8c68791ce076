/**
 * Optional OpenTelemetry traces behind one small interface ({@link traced}); nothing else imports
 * `@opentelemetry/*`. Off unless an OTLP endpoint is set; while off, no SDK module is loaded.
 * docs/operations.md (Traces) lists the variables and the spans.
 */
import type { SpanAttributes, SpanKindName, TraceCarrier, TraceSpan, TracedService, Tracer, TracesProtocol } from "./tracer.js";

export type { SpanAttributes, SpanKindName, TraceCarrier, TraceSpan, TracedService, TracesProtocol } from "./tracer.js";

/** Why tracing is off (undefined: it should be on). */
export function tracingOffReason(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return "OTEL_SDK_DISABLED=true";
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((e) => e.trim().toLowerCase());
  if (exporters.includes("none")) return "OTEL_TRACES_EXPORTER=none";
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return "no OTLP endpoint is set";
  return undefined;
}

const NO_SPAN: TraceSpan = { set() {}, rename() {}, fail() {} };

let active: Tracer | undefined;

/**
 * Runs `work` in a span named `name`: a child of the running span, else of the trace `parent`
 * carries. Off, it is `work(NO_SPAN)`. A throw marks the span failed and is rethrown.
 */
export function traced<T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: TraceSpan) => Promise<T>,
  kind: SpanKindName = "internal",
  parent?: TraceCarrier,
): Promise<T> {
  return active === undefined ? work(NO_SPAN) : active.span(name, attributes, work, kind, parent);
}

/** The running span's W3C trace context as headers for a call to another service; none while off. */
export function traceHeaders(): Record<string, string> {
  return active === undefined ? {} : active.headers();
}

/** Adds attributes to the running span (a route's facts to its request's span); nothing while off. */
export function annotateSpan(attributes: SpanAttributes): void {
  active?.annotate(attributes);
}

/** Runs the emitter's listeners in the span running now; the emitter untouched while off. */
export function bindToSpan<E extends NodeJS.EventEmitter>(emitter: E): E {
  return active === undefined ? emitter : active.bind(emitter);
}

/** Whether spans are being recorded (to skip preparing attributes that cost something). */
export function tracingOn(): boolean {
  return active !== undefined;
}

/**
 * Starts tracing when the environment asks for it (the SDK reads the rest of `OTEL_*` itself:
 * headers, sampler, batch sizes, resource attributes). Answers what was decided, for the start log.
 */
export async function startTracing(
  service: TracedService,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ on: true; protocol: TracesProtocol; warnings: string[] } | { on: false; reason: string }> {
  const reason = tracingOffReason(env);
  if (reason !== undefined) return { on: false, reason };
  const { protocol, warnings } = tracesProtocol(env);
  if (active === undefined) {
    const { openTracer } = await import("./tracing-sdk.js");
    active = await openTracer(service, protocol);
  }
  return { on: true, protocol, warnings };
}

/**
 * The OTLP protocol asked for: `http/json` (also when none is) or `http/protobuf`. gRPC and any
 * other value are not supported: said as a start-up warning, and spans go as http/json.
 */
export function tracesProtocol(env: NodeJS.ProcessEnv): { protocol: TracesProtocol; warnings: string[] } {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const asked = env[name]?.trim().toLowerCase();
  if (!asked || asked === "http/json") return { protocol: "http/json", warnings: [] };
  if (asked === "http/protobuf") return { protocol: "http/protobuf", warnings: [] };
  const why =
    asked === "grpc"
      ? "gRPC is not supported (use http/protobuf or http/json, and the collector's OTLP/HTTP port, 4318 by default)"
      : "it is not an OTLP protocol this service speaks (http/protobuf or http/json)";
  return { protocol: "http/json", warnings: [`${name}=${env[name]?.trim()}: ${why}; traces are sent as OTLP/HTTP JSON (http/json) to the same endpoint`] };
}

/** Flushes and stops tracing; a no-op while off. */
export async function stopTracing(): Promise<void> {
  const tracer = active;
  active = undefined;
  await tracer?.shutdown();
}
