/**
 * The closed list of error codes a caller can see. The HTTP layer maps each to one status;
 * capabilities throw {@link ServiceError} with a code, never an HTTP status.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  invalid_webhook: 401,
  invalid_webhook_token: 401,
  invalid_signature: 401,
  forbidden: 403,
  /** A session opened with an admin-set or expired password may only change it. */
  password_change_required: 403,
  org_suspended: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  webhook_disabled: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  /** A forge address on a network the service does not call (loopback, private, link-local …). */
  forge_address_refused: 422,
  rate_limited: 429,
  /** A forge this service called failed or could not be reached (provisioning). */
  forge_unavailable: 502,
  monthly_call_quota_exceeded: 429,
  headers_too_large: 431,
  server_busy: 503,
  store_unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The request field at fault, for validation errors. */
    readonly field?: string,
    /** Seconds a caller should wait, sent as Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const invalid = (field: string, message: string) => new ServiceError("invalid_request", message, field);
export const notFound = (what: string) => new ServiceError("not_found", `${what} not found`);
export const conflict = (message: string) => new ServiceError("conflict", message);
