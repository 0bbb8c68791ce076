/** The tracing interface's types (`tracing.ts`), apart so that the SDK's side (`tracing-sdk.ts`) shares them without a circle. */

/** A span's attributes: plain values only, never a payload, a header or a secret. Undefined values are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** `server`: a request this service answers; `client`: a call to another service; `internal`: a step. */
export type SpanKindName = "server" | "client" | "internal";

/** The span a piece of work runs in. */
export interface TraceSpan {
  /** Adds (or replaces) attributes. */
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, with a short reason (never a payload or a secret). A thrown error marks it too. */
  fail(reason: string): void;
}

/** A started tracer: spans, and a flush at the end. */
export interface Tracer {
  span<T>(name: string, attributes: SpanAttributes, work: (span: TraceSpan) => Promise<T>, kind: SpanKindName): Promise<T>;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** What the service says of itself when the variables do not (`OTEL_SERVICE_NAME` wins). */
export interface TracedService {
  name: string;
  version: string;
}
