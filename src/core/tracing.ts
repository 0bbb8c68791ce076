/**
 * Optional OpenTelemetry traces, behind one small interface: the rest of the code calls
 * {@link traced} and never imports `@opentelemetry/*`. Off unless an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and off with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. While off, no SDK module is loaded
 * and {@link traced} only calls its work: the SDK is imported (`tracing-sdk.ts`) only by
 * {@link startTracing}, once it is on. docs/operations.md (Traces) lists the variables and the spans.
 */
import type { SpanAttributes, SpanKindName, TraceSpan, TracedService, Tracer } from "./tracer.js";

export type { SpanAttributes, SpanKindName, TraceSpan, TracedService } from "./tracer.js";

/** Why tracing is off (undefined: it should be on). */
export function tracingOffReason(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return "OTEL_SDK_DISABLED=true";
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((e) => e.trim().toLowerCase());
  if (exporters.includes("none")) return "OTEL_TRACES_EXPORTER=none";
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return "no OTLP endpoint is set";
  return undefined;
}

const NO_SPAN: TraceSpan = { set() {}, fail() {} };

let active: Tracer | undefined;

/**
 * Runs `work` in a span named `name`, a child of the span it runs in. While tracing is off this
 * is `work(NO_SPAN)` and nothing more. A throw from `work` marks the span failed and is rethrown.
 */
export function traced<T>(name: string, attributes: SpanAttributes, work: (span: TraceSpan) => Promise<T>, kind: SpanKindName = "internal"): Promise<T> {
  return active === undefined ? work(NO_SPAN) : active.span(name, attributes, work, kind);
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
): Promise<{ on: true; warnings: string[] } | { on: false; reason: string }> {
  const reason = tracingOffReason(env);
  if (reason !== undefined) return { on: false, reason };
  if (active === undefined) {
    const { openTracer } = await import("./tracing-sdk.js");
    active = openTracer(service);
  }
  return { on: true, warnings: protocolWarnings(env) };
}

/** Spans are sent as OTLP/HTTP JSON only: another protocol asked for is said at start. */
function protocolWarnings(env: NodeJS.ProcessEnv): string[] {
  const asked = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  if (!asked || asked === "http/json") return [];
  return [`OTEL_EXPORTER_OTLP_PROTOCOL=${asked} is not supported: traces are sent as OTLP/HTTP JSON (http/json) to the same endpoint`];
}

/** Flushes and stops tracing; a no-op while off. */
export async function stopTracing(): Promise<void> {
  const tracer = active;
  active = undefined;
  await tracer?.shutdown();
}
