/**
 * The OpenTelemetry SDK behind {@link Tracer}, imported only once tracing is on. Spans go in
 * batches over OTLP/HTTP, JSON or protobuf; the SDK reads the other `OTEL_*` variables itself.
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import type { SpanAttributes, SpanKindName, TraceSpan, TracedService, Tracer, TracesProtocol } from "./tracer.js";

const KINDS: Record<SpanKindName, SpanKind> = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };
/** A failure's reason as a span keeps it: short, one line. */
const REASON_MAX = 200;

async function exporterFor(protocol: TracesProtocol): Promise<SpanExporter> {
  if (protocol === "http/protobuf") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  return new OTLPTraceExporter();
}

export async function openTracer(service: TracedService, protocol: TracesProtocol): Promise<Tracer> {
  // The product's name and version, under what the environment says (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": service.name, "service.version": service.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(await exporterFor(protocol))] });
  // The async-local context manager (a span started inside another's work is its child) and the
  // W3C trace context propagator (OTEL_PROPAGATORS may name others).
  provider.register();
  const tracer = provider.getTracer(service.name, service.version);
  return {
    span(name, attributes, work, kind, parent) {
      const here = context.active();
      // A request's own trace context counts only where no span of this process runs already.
      const from = parent && trace.getSpan(here) === undefined ? propagation.extract(here, parent) : here;
      return tracer.startActiveSpan(name, { kind: KINDS[kind], attributes: plain(attributes) }, from, async (span) => {
        try {
          return await work(handle(span));
        } catch (err) {
          span.setAttribute("error.type", errorType(err));
          span.setStatus({ code: SpanStatusCode.ERROR, message: reasonOf(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    headers() {
      const out: Record<string, string> = {};
      propagation.inject(context.active(), out);
      return out;
    },
    annotate(attributes) {
      trace.getActiveSpan()?.setAttributes(plain(attributes));
    },
    bind(emitter) {
      return context.bind(context.active(), emitter);
    },
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function handle(span: Span): TraceSpan {
  return {
    set: (attributes) => span.setAttributes(plain(attributes)),
    rename: (name) => span.updateName(name),
    fail: (reason) => span.setStatus({ code: SpanStatusCode.ERROR, message: reason.slice(0, REASON_MAX) }),
  };
}

function plain(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

/** A thrown error's kind: its code when it has a word for one (a ForgeFailure's), else its class. */
function errorType(err: unknown): string {
  const e = err as { code?: unknown; error?: { code?: unknown } } | null;
  const code = e?.error?.code ?? e?.code;
  if (typeof code === "string" && /^[\w.-]{1,64}$/.test(code)) return code;
  return err instanceof Error ? err.name : typeof err;
}

function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n", 1)[0]!.slice(0, REASON_MAX);
}
