import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { Config } from "../config/config.js";

/** Which hops' X-Forwarded-For to believe (SERVICE_TRUST_PROXY), as Fastify's `trustProxy` takes it. */
export function trustedProxies(trust: Config["trustProxy"]): false | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (trust === true) return () => true;
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  return proxyAddr.compile(trust);
}

/**
 * The caller's address as Fastify's `request.ip` reads it under the same trust: the socket's
 * peer, or with trusted proxies the nearest untrusted hop of X-Forwarded-For. One function for
 * the delivery route and the delivery fast path, so both record the same source IP.
 */
export function clientAddress(trust: Config["trustProxy"]): (req: IncomingMessage) => string | undefined {
  const trusted = trustedProxies(trust);
  if (!trusted) return (req) => req.socket.remoteAddress;
  return (req) => {
    const addresses = proxyAddr.all(req, trusted);
    return addresses[addresses.length - 1];
  };
}
