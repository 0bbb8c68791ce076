import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { NetworkPolicy, parseAddress } from "../../core/network-policy.js";
import { forgeFailure } from "./forge-errors.js";

/** The one answer to a refused address, the same whether anything listens there or not. */
export const ADDRESS_REFUSED =
  "the forge's address is on a network this service does not call (loopback, private, link-local or reserved); an operator may allow it with SERVICE_FORGE_ALLOWED_NETWORKS";

const REFUSED_CODE = "FORGE_ADDRESS_REFUSED";

export type Resolve = (host: string, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Node's fetch is undici; its Agent class is reached through the global dispatcher (undici is not a dependency of ours). */
interface DispatcherClass {
  new (options: { connect: { lookup: (host: string, options: { all?: boolean }, cb: LookupCallback) => void } }): object;
}

/**
 * Every forge request's connection: the address is checked after name resolution, on the
 * address actually connected to (a custom `lookup` on the connection pool, so a name that
 * resolves, or later re-resolves, to a refused address is refused), and an address literal in
 * the URL is checked before anything is sent. Built once at boot and shared by every forge client.
 */
export class ForgeNetwork {
  private dispatcher: Promise<object> | undefined;

  constructor(
    readonly policy: NetworkPolicy = new NetworkPolicy(),
    /** Name resolution (the system's resolver; tests give a table). */
    private readonly resolve: Resolve = (host, cb) => dnsLookup(host, { all: true }, cb),
  ) {}

  async fetch(url: URL, init: RequestInit): Promise<Response> {
    if (parseAddress(url.hostname) !== null && !this.policy.permits(url.hostname)) throw forgeFailure("forge_address_refused", ADDRESS_REFUSED);
    this.dispatcher ??= this.createDispatcher();
    try {
      return await fetch(url, { ...init, dispatcher: await this.dispatcher } as RequestInit);
    } catch (err) {
      if (refusedByLookup(err)) throw forgeFailure("forge_address_refused", ADDRESS_REFUSED);
      throw err;
    }
  }

  private async createDispatcher(): Promise<object> {
    await fetch("data:,"); // loads Node's undici, which installs its global Agent
    const global = (globalThis as Record<symbol, { constructor?: DispatcherClass } | undefined>)[Symbol.for("undici.globalDispatcher.1")];
    if (typeof global?.constructor !== "function") throw new Error("Node's fetch dispatcher was not found: forge calls cannot be checked");
    return new global.constructor({ connect: { lookup: (host, options, cb) => this.lookup(host, options, cb) } });
  }

  private lookup(host: string, options: { all?: boolean }, cb: LookupCallback): void {
    this.resolve(host, (err, addresses) => {
      if (err) return cb(err, []);
      if (addresses.length === 0 || addresses.some((a) => !this.policy.permits(a.address))) {
        return cb(Object.assign(new Error(ADDRESS_REFUSED), { code: REFUSED_CODE }), []);
      }
      if (options.all) return cb(null, addresses);
      const first = addresses[0] as LookupAddress;
      cb(null, first.address, first.family);
    });
  }
}

function refusedByLookup(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    if ((e as { code?: unknown }).code === REFUSED_CODE) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
