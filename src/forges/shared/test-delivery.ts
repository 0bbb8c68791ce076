/**
 * A provider's own test delivery (its "Test" button or ping), sent through the delivery
 * endpoint to check a config end to end: its event header value, its headers without the
 * proof, and its body.
 */
export interface TestDelivery {
  event: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Where a test delivery is addressed: the hook's URL, the webhook's id, a fresh delivery id. */
export interface TestTarget {
  url: string;
  hookId: string;
  deliveryId: string;
}

/** The repository a test delivery names (GitHub's and Forgejo's shape). */
export const PING_REPO = { id: 1, name: "ping", full_name: "service/ping", html_url: "https://example.invalid/service/ping", default_branch: "main" };
export const ZERO_SHA = "0".repeat(40);
