import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_STATUS, ServiceError, type ErrorCode } from "../core/errors.js";
import { isStoreUnavailable } from "../store/errors.js";

/** The one error body: `{error, detail, field?, request_id}`; `error` is a stable code clients switch on. */
export interface ErrorBody {
  error: ErrorCode;
  detail: string;
  field?: string;
}

/** A reply as data: what both the routes and the delivery fast path send. */
export interface Answer {
  status: number;
  body: object;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** Close the connection after the answer (a request body left unread). */
  close?: boolean;
  /** The generic error body: it is sent with the request's id (the spec's denial envelope is not). */
  errorBody?: boolean;
}

export function errorAnswer(code: ErrorCode, detail: string, field?: string, retryAfter?: number): Answer {
  const body: ErrorBody = field === undefined ? { error: code, detail } : { error: code, detail, field };
  return { status: ERROR_STATUS[code], body, retryAfter, errorBody: true };
}

/** The body as sent: an error body names the request's id, so a caller can quote it to the operator. */
export function answerBody(a: Answer, requestId: string): object {
  return a.errorBody ? { ...a.body, request_id: requestId } : a.body;
}

export function sendAnswer(reply: FastifyReply, a: Answer) {
  if (a.retryAfter !== undefined) reply.header("retry-after", String(a.retryAfter));
  if (a.close) reply.header("connection", "close");
  return reply.code(a.status).send(answerBody(a, reply.request.id));
}

export function sendError(reply: FastifyReply, code: ErrorCode, detail: string, field?: string, retryAfter?: number) {
  return sendAnswer(reply, errorAnswer(code, detail, field, retryAfter));
}

/** A service error, the store being unavailable (503, logged) or anything else (500, logged). */
export function thrownAnswer(err: unknown, log: FastifyBaseLogger): Answer {
  if (err instanceof ServiceError) return errorAnswer(err.code, err.message, err.field, err.retryAfter);
  if (isStoreUnavailable(err)) {
    log.error({ err }, "store unavailable");
    return errorAnswer("store_unavailable", "the store is unavailable; try again", undefined, 1);
  }
  log.error({ err }, "unhandled error");
  return errorAnswer("internal", "internal error");
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
};

/** Fastify's own refusals before routing (`frameworkErrors`), in the one body shape. */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") return sendError(reply, "uri_too_long", "a path segment is longer than 100 characters");
  if (err.code === "FST_ERR_BAD_URL") return sendError(reply, "invalid_request", "the URL is not valid (a bad percent-escape)");
  return sendAnswer(reply, thrownAnswer(err, request.log));
}

/** Maps every thrown error to the one body shape; 5xx bodies say nothing internal. */
export function installErrorHandler(app: FastifyInstance, onAborted: () => void): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    // A caller gone mid-body is not a failure of ours (its socket's ECONNRESET is not the store's).
    if (request.raw.destroyed && !request.raw.complete) {
      onAborted();
      request.log.debug({ route: request.routeOptions.url }, "request aborted by its caller");
      return reply.hijack();
    }
    if (err instanceof ServiceError) return sendAnswer(reply, thrownAnswer(err, request.log));
    if (err.validation) return sendValidationError(reply, err.validation, err.validationContext);
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped) return sendError(reply, mapped, fastifyDetail(err));
    if (err instanceof SyntaxError || (err.statusCode === 400 && !isStoreUnavailable(err))) {
      return sendError(reply, "invalid_request", "request is malformed");
    }
    return sendAnswer(reply, thrownAnswer(err, request.log));
  });

  app.setNotFoundHandler((request, reply) => sendError(reply, "not_found", `no route ${request.method} ${request.url.split("?")[0]}`));
}

/** A schema's refusal: the first issue, with the dotted field it names. */
function sendValidationError(reply: FastifyReply, issues: NonNullable<FastifyError["validation"]>, context: string | undefined) {
  const first = issues[0];
  const field = validationField(first as ValidationIssue | undefined);
  const detail = `${context ?? "body"}${field ? `.${field}` : ""} ${first?.message ?? "is invalid"}`;
  return sendError(reply, "invalid_request", detail, field || undefined);
}

const fastifyDetail = (err: FastifyError) =>
  err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError ? "body is not valid JSON" : err.message;

interface ValidationIssue {
  instancePath?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** The dotted field a validation issue names: `vars.KEY`, `name`, or the missing/extra property. */
function validationField(issue: ValidationIssue | undefined): string {
  if (!issue) return "";
  const base = (issue.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
  const params = issue.params ?? {};
  const extra =
    (params.additionalProperty as string | undefined) ??
    (params.missingProperty as string | undefined) ??
    firstOf(params.additionalProperties) ??
    firstOf(params.requiredProperties);
  return [base, extra].filter(Boolean).join(".");
}

function firstOf(v: unknown): string | undefined {
  return Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
}
