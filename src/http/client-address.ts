import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { Config } from "../config/config.js";

/**
 * The caller's address as Fastify's `request.ip` reads it under the same `trustProxy` option:
 * the socket's peer, or with trusted proxies the nearest untrusted hop of X-Forwarded-For.
 * One function for the routes and the delivery fast path, so both record the same source IP.
 */
export function clientAddress(trust: Config["trustProxy"]): (req: IncomingMessage) => string | undefined {
  if (trust === false) return (req) => req.socket.remoteAddress;
  const trusted =
    trust === true ? () => true
    : typeof trust === "number" ? (_address: string, hop: number) => hop < trust
    : proxyAddr.compile(trust);
  return (req) => {
    const addresses = proxyAddr.all(req, trusted);
    return addresses[addresses.length - 1];
  };
}
