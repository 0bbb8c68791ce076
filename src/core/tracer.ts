/** The tracing interface's types (`tracing.ts`), apart so that the SDK's side (`tracing-sdk.ts`) shares them without a circle. */

/** A span's attributes: plain values only, never a payload, a header or a secret. Undefined values are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** `server`: a request this service answers; `client`: a call to another service; `internal`: a step. */
export type SpanKindName = "server" | "client" | "internal";

/**
 * Headers that may carry a W3C trace context (`traceparent`, `tracestate`): a request's, to
 * continue its caller's trace, or a call's, to carry this one's on.
 */
export type TraceCarrier = Record<string, string | string[] | undefined>;

/** The span a piece of work runs in. */
export interface TraceSpan {
  /** Adds (or replaces) attributes. */
  set(attributes: SpanAttributes): void;
  /** Names the span anew (a request's once its route is known). */
  rename(name: string): void;
  /** Marks the span failed, with a short reason (never a payload or a secret). A thrown error marks it too. */
  fail(reason: string): void;
}

/** A started tracer: spans, and a flush at the end. */
export interface Tracer {
  /**
   * Runs `work` in a new span: a child of the span it runs in, or, when it runs in none and
   * `parent` carries a trace context, of the caller's span there.
   */
  span<T>(name: string, attributes: SpanAttributes, work: (span: TraceSpan) => Promise<T>, kind: SpanKindName, parent?: TraceCarrier): Promise<T>;
  /** The running span's trace context as headers to send (`traceparent`, `tracestate`). */
  headers(): Record<string, string>;
  /** Sets attributes on the running span, if any. */
  annotate(attributes: SpanAttributes): void;
  /** Runs an emitter's listeners in the span running now (a request's body events in its request's span). */
  bind<E extends NodeJS.EventEmitter>(emitter: E): E;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** What the service says of itself when the variables do not (`OTEL_SERVICE_NAME` wins). */
export interface TracedService {
  name: string;
  version: string;
}

/** How spans go to the collector (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL). */
export type TracesProtocol = "http/json" | "http/protobuf";
