/**
 * Which addresses the service may open a connection to on a tenant's behalf (a forge's API).
 * By default only public unicast addresses: loopback, private, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, ULA, multicast, documentation and reserved ranges are refused, in
 * any spelling (hex, octal, decimal, shortened IPv4; IPv4-mapped, -compatible and NAT64 IPv6).
 * An operator allows a private forge explicitly with CIDRs.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
export type AddressBytes = Uint8Array;

export interface Cidr {
  bytes: AddressBytes;
  prefix: number;
  text: string;
}

/** One part of an inet_aton address: decimal, 0x-hex or 0-octal; null when it is none of them or too large. */
function inetAtonPart(part: string): number | null {
  let n: number;
  if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  else if (/^0[0-7]+$/.test(part)) n = Number.parseInt(part, 8);
  else if (/^(0|[1-9][0-9]*)$/.test(part)) n = Number(part);
  else return null;
  return Number.isSafeInteger(n) ? n : null;
}

/** IPv4 as inet_aton reads it: 1-4 parts, each decimal, 0x-hex or 0-octal, the last filling the rest. */
export function parseIPv4(text: string): AddressBytes | null {
  const parts = text.split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const n = inetAtonPart(part);
    if (n === null) return null;
    values.push(n);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  const bytes = new Uint8Array(4);
  values.forEach((v, i) => {
    bytes[i] = v;
  });
  for (let i = 3, rest = last; i >= values.length; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}

/** IPv6 in any RFC 4291 text form (with `::`, a trailing dotted quad; a zone id is dropped). */
export function parseIPv6(text: string): AddressBytes | null {
  let t = text.replace(/%.*$/, "");
  const quad = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(t);
  if (quad) {
    const o = quad.slice(2).map(Number) as [number, number, number, number];
    if (o.some((v) => v > 255)) return null;
    t = `${quad[1]}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = t.split("::");
  if (halves.length > 2) return null;
  const group = (s: string) => (s === "" ? [] : s.split(":"));
  const head = group(halves[0] as string);
  const back = halves.length === 2 ? group(halves[1] as string) : [];
  if (![...head, ...back].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const count = head.length + back.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return null;
  const words = [...head, ...Array<string>(8 - count).fill("0"), ...back].map((g) => Number.parseInt(g, 16));
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

/** An address literal as a URL host or a resolver gives it (brackets allowed), or null if it is a name. */
export function parseAddress(text: string): AddressBytes | null {
  const t = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return t.includes(":") ? parseIPv6(t) : parseIPv4(t);
}

/** The IPv4 address an IPv6 one carries (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96), else the address itself. */
export function unwrapIPv4(bytes: AddressBytes): AddressBytes {
  if (bytes.length !== 16) return bytes;
  const prefix = (n: number, ...lead: number[]) => lead.every((b, i) => bytes[i] === b) && bytes.slice(lead.length, n).every((b) => b === 0);
  const mapped = prefix(10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 = prefix(12, 0x00, 0x64, 0xff, 0x9b);
  const compatible = prefix(12) && (bytes[12] !== 0 || bytes[13] !== 0 || bytes[14] !== 0 || (bytes[15] as number) > 1);
  return mapped || nat64 || compatible ? bytes.slice(12) : bytes;
}

/** `address/prefix` (or a lone address), IPv4 in dotted-quad form only. */
export function parseCidr(text: string): Cidr | null {
  const [addr, bits, extra] = text.trim().split("/");
  if (extra !== undefined || addr === undefined) return null;
  const bytes = addr.includes(":") ? parseIPv6(addr) : /^\d{1,3}(\.\d{1,3}){3}$/.test(addr) ? parseIPv4(addr) : null;
  if (bytes === null) return null;
  const max = bytes.length * 8;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { bytes, prefix, text: text.trim() };
}

export function inCidr(bytes: AddressBytes, cidr: Cidr): boolean {
  if (bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const take = Math.min(8, cidr.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[bit / 8] as number) & mask) !== ((cidr.bytes[bit / 8] as number) & mask)) return false;
  }
  return true;
}

const ranges = (...list: string[]) => list.map((c) => parseCidr(c) as Cidr);

/** Not a public unicast address: every range IANA's special-purpose registries mark not globally reachable, plus multicast. */
const NOT_PUBLIC = ranges(
  "0.0.0.0/8", // this network, unspecified
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, cloud metadata
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, broadcast
  "::/128",
  "::1/128",
  "100::/64", // discard
  "2001::/23", // IETF protocol assignments (Teredo, ORCHID …)
  "2001:db8::/32",
  "2002::/16", // 6to4 carries any IPv4 address
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10", // old site-local
  "ff00::/8", // multicast
);

/** The CIDR list of SERVICE_FORGE_ALLOWED_NETWORKS (comma- or space-separated); the entries it cannot read. */
export function parseCidrList(text: string): { cidrs: Cidr[]; bad: string[] } {
  const cidrs: Cidr[] = [];
  const bad: string[] = [];
  for (const item of text.split(/[\s,]+/).filter(Boolean)) {
    const cidr = parseCidr(item);
    if (cidr) cidrs.push(cidr);
    else bad.push(item);
  }
  return { cidrs, bad };
}

export class NetworkPolicy {
  constructor(readonly allowed: readonly Cidr[] = []) {}

  /** Whether a connection to this address (a literal; a name is never permitted here) may be opened. */
  permits(address: string): boolean {
    const parsed = parseAddress(address);
    if (parsed === null) return false;
    const bytes = unwrapIPv4(parsed);
    if (this.allowed.some((c) => inCidr(bytes, c))) return true;
    return !NOT_PUBLIC.some((c) => inCidr(bytes, c));
  }
}
