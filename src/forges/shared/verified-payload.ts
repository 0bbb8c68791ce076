declare const verified: unique symbol;

/**
 * The payload text of a delivery whose authenticity was proven. Parsers take only this
 * type, so JSON.parse cannot run on an unverified body. Only verify code constructs one.
 */
export interface VerifiedPayload {
  /** The JSON text to parse: the body, or a form body's `payload` field. */
  readonly text: string;
  /** SHA-256 hex of the raw body as received. */
  readonly rawSha256: string;
  readonly [verified]: true;
}

export function markVerified(text: string, rawSha256: string): VerifiedPayload {
  return { text, rawSha256 } as VerifiedPayload;
}
