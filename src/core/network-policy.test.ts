import { describe, expect, it } from "vitest";
import { NetworkPolicy, parseAddress, parseCidrList } from "./network-policy.js";

const bytes = (a: string) => Array.from(parseAddress(a) ?? []).join(".");

describe("parseAddress", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["10.0x10.1", "10.16.0.1"],
  ])("reads IPv4 %s as %s", (text, want) => expect(bytes(text)).toBe(want));

  it.each([
    ["256.0.0.1"],
    ["1.2.3.4.5"],
    ["08.0.0.1"],
    ["4294967296"],
    ["1.2.3.256x"],
    ["example.com"],
    [""],
    ["1:2:3:4:5:6:7:8:9"],
    ["1::2::3"],
    ["::ffff:300.0.0.1"],
  ])("refuses %s as an address", (text) => expect(parseAddress(text)).toBeNull());

  it("reads IPv6 forms", () => {
    expect(bytes("::1")).toBe("0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1");
    expect(bytes("[::ffff:127.0.0.1]")).toBe(bytes("::ffff:7f00:1"));
    expect(bytes("fe80::1%eth0")).toBe(bytes("fe80::1"));
    expect(bytes("1::2:3:4:5:6:7")).toBe("0.1.0.0.0.2.0.3.0.4.0.5.0.6.0.7");
  });
});

describe("NetworkPolicy (default)", () => {
  const policy = new NetworkPolicy();
  it.each([
    "127.0.0.1",
    "0x7f000001",
    "127.1",
    "2130706433",
    "0177.0.0.1",
    "[::ffff:7f00:1]",
    "::ffff:127.0.0.1",
    "::127.0.0.1",
    "64:ff9b::7f00:1",
    "::1",
    "::",
    "0.0.0.0",
    "169.254.169.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "fd12:3456::1",
    "fc00::1",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "2002:7f00:1::",
    "example.com",
  ])("refuses %s", (a) => expect(policy.permits(a)).toBe(false));
  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "2606:4700::1111", "140.82.112.3"])("permits %s", (a) =>
    expect(policy.permits(a)).toBe(true),
  );
});

describe("NetworkPolicy with an allow-list", () => {
  const { cidrs, bad } = parseCidrList("127.0.0.0/8, ::1/128 10.20.0.0/16");
  const policy = new NetworkPolicy(cidrs);
  it("permits only the listed private networks", () => {
    expect(bad).toEqual([]);
    expect(policy.permits("127.0.0.1")).toBe(true);
    expect(policy.permits("::ffff:127.0.0.1")).toBe(true);
    expect(policy.permits("::1")).toBe(true);
    expect(policy.permits("10.20.3.4")).toBe(true);
    expect(policy.permits("10.21.0.1")).toBe(false);
    expect(policy.permits("169.254.169.254")).toBe(false);
  });
  it("names the entries it cannot read", () => {
    expect(parseCidrList("10.0.0.0/33 x 1.2.3.4/0 fd00::/8 0x7f.1/8").bad).toEqual(["10.0.0.0/33", "x", "0x7f.1/8"]);
  });
});
