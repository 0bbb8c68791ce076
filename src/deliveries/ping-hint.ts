import { NetworkPolicy, parseAddress } from "../core/network-policy.js";
import type { Posted, UnreachableCause } from "./post-delivery.js";

const PUBLIC = new NetworkPolicy();
const BASE = "SERVICE_BASE_URL";

/** What the test delivery met, beyond the answer itself. */
export interface PingSeen {
  /** The delivery URL it was sent to (the webhook's `delivery_url`). */
  url: string;
  posted: Posted;
  /** The answer's delivery id is in this service's log. */
  listed: boolean;
}

/**
 * What an operator should check after a test delivery, in a sentence or two; null when there is
 * nothing to say. A delivery that did not come back from this service says how SERVICE_BASE_URL
 * is wrong; one that did, but through a loopback or private address, says who cannot reach it.
 */
export function pingHint({ url, posted, listed }: PingSeen): string | null {
  const u = new URL(url);
  const at = `${u.protocol}//${u.host}`;
  if (posted.kind === "unreachable") return unreachableHint(posted.cause, at, u.hostname);
  if (posted.status >= 300 && posted.status < 400) {
    return `${url} redirects${posted.location ? ` to ${posted.location}` : ""}; forges do not follow redirects: set ${BASE} to the address it redirects to.`;
  }
  if (posted.json === null) {
    return `${at} answered ${posted.status}, but not as this service (its answers are JSON): a proxy or another server answers there. Check ${BASE} and what routes ${u.pathname} to this service.`;
  }
  if (posted.status === 404 && posted.json.error === "not_found") {
    return `${at} has no delivery endpoint at ${u.pathname}: check the path in ${BASE} and any path prefix a proxy strips.`;
  }
  const another = `${BASE} reaches another instance of the service, with a database of its own.`;
  if (posted.json.error === "invalid_webhook") return `The service at ${at} does not know this webhook: ${another}`;
  const id = posted.json.delivery_id;
  if (typeof id === "string" && !listed) {
    return `${at} accepted it, but this service did not record delivery ${id}: ${another}`;
  }
  return reachedHint(u.hostname);
}

function unreachableHint(cause: UnreachableCause, at: string, host: string): string {
  const fix = `${BASE} must be the address forges call this service at: its public URL, through any proxy or load balancer.`;
  switch (cause) {
    case "refused":
      return `Nothing accepts connections at ${at}. ${fix}`;
    case "dns":
      return `${host} does not resolve from here. ${fix}`;
    case "timeout":
      return `${at} did not answer in time: a firewall may drop the traffic, or the address is not this service's. ${fix}`;
    case "tls":
      return `The TLS handshake with ${at} failed: its certificate must be valid for ${host} and trusted (forges check it too), and an https URL must reach a TLS listener.`;
    case "reset":
      return `${at} closed the connection without an answer: check the proxy in front of the service and the URL's scheme (http or https). ${fix}`;
    default:
      return `The request to ${at} failed. ${fix}`;
  }
}

/** This service answered: whether a forge elsewhere can reach the same address too. */
function reachedHint(host: string): string | null {
  const literal = host.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host.endsWith(".localhost") || /^127\./.test(literal) || literal === "::1";
  if (loopback) return `This service answered, but ${BASE} (${host}) is a loopback address: only this machine can call it, not a forge.`;
  if (parseAddress(literal) !== null && !PUBLIC.permits(literal)) {
    return `This service answered, but ${BASE} (${host}) is a private address: only a forge on that network can call it (github.com and gitlab.com cannot).`;
  }
  return null;
}
