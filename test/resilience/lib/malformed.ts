/**
 * Generated hostile traffic for the malformed-input test. Request i is built from its own
 * PRNG seeded with (seed, i), so any single request can be rebuilt and replayed from the
 * printed seed and index.
 */
import { createRequire } from "node:module";
import type http from "node:http";
import { prng, type Prng } from "./proc.js";
import { sign, type Hook } from "./seed.js";

export interface Hooks {
  forgeB: Hook;
  forgeA: Hook;
  forgeC: Hook;
  generic: Hook;
  genericHmac: Hook;
}

/** A request over node:http, or raw bytes over a socket (malformed HTTP itself). */
export type Generated =
  | { kind: "http"; category: string; method: string; path: string; headers: http.OutgoingHttpHeaders; body?: Buffer }
  | { kind: "raw"; category: string; bytes: Buffer };

interface ExampleDefinition {
  name: string;
  examples: Array<Record<string, any>>;
}
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples/api.github.com/index.json") as ExampleDefinition[];
const ghExamples = examples.flatMap((d) => d.examples.map((e) => ({ event: d.name, payload: e })));
const prOpened = examples.find((d) => d.name === "pull_request")!.examples.find((e) => e.action === "opened")!;

const gitlabMr = {
  object_kind: "merge_request",
  event_type: "merge_request",
  user: { id: 51, username: "alice", name: "Alice" },
  project: { id: 14, path_with_namespace: "acme/platform/app", web_url: "http://gitlab.example/acme/platform/app" },
  object_attributes: {
    iid: 7,
    id: 99,
    action: "open",
    state: "opened",
    draft: false,
    work_in_progress: false,
    title: "Change",
    source_project_id: 14,
    target_project_id: 14,
    source_branch: "feat",
    target_branch: "main",
    last_commit: { id: "a".repeat(40) },
    source: { path_with_namespace: "acme/platform/app" },
    target: { path_with_namespace: "acme/platform/app" },
    url: "http://gitlab.example/acme/platform/app/-/merge_requests/7",
  },
  labels: [],
  changes: {},
};

const WEIRD_STRINGS = [
  "",
  " ",
  "\u0000",
  "\uffff",
  "\ud800",
  "💥".repeat(50),
  "../../etc/passwd",
  "%00",
  "%ff%fe",
  "a".repeat(70_000),
  "<script>",
  "null",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "9".repeat(400),
  "-0",
  "NaN",
  "Infinity",
  "1e309",
  "\r\nX-Injected: 1",
  "sha256=",
  "sha256=zz",
];

function weirdValue(r: Prng, depth = 0): unknown {
  switch (r.int(0, 11)) {
    case 0:
      return null;
    case 1:
      return r.int(-1e9, 1e9);
    case 2:
      return r.next() * 1e308 * (r.next() < 0.5 ? -1 : 1);
    case 3:
      return r.pick(WEIRD_STRINGS);
    case 4:
      return r.next() < 0.5;
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return depth < 3 ? Array.from({ length: r.int(1, 5) }, () => weirdValue(r, depth + 1)) : "x";
    case 8:
      return depth < 3
        ? Object.fromEntries(Array.from({ length: r.int(1, 5) }, (_, i) => [r.pick(["a", "__proto__", "constructor", `k${i}`]), weirdValue(r, depth + 1)]))
        : 1;
    case 9:
      return r.bytes(r.int(1, 64)).toString("latin1");
    case 10:
      return Number.MAX_SAFE_INTEGER + r.int(1, 1000);
    default:
      return "x".repeat(r.int(0, 5000));
  }
}

/** Replaces, deletes or retypes a few fields at random depths of a JSON value. */
function mutate(r: Prng, value: any, edits: number): any {
  const copy = structuredClone(value);
  for (let e = 0; e < edits; e++) {
    let node = copy;
    for (let d = 0; d < 6 && node && typeof node === "object"; d++) {
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const k = r.pick(keys);
      const child = node[k];
      if (child && typeof child === "object" && r.next() < 0.6) {
        node = child;
        continue;
      }
      if (r.next() < 0.3) delete node[k];
      else node[k] = weirdValue(r);
      break;
    }
  }
  return copy;
}

function deepNest(r: Prng): string {
  const depth = r.int(1000, 20_000);
  return r.next() < 0.5 ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

function hugeBody(r: Prng): Buffer {
  const size = r.int(256 * 1024, 4 * 1024 * 1024);
  switch (r.int(0, 3)) {
    case 0:
      return r.bytes(size);
    case 1:
      return Buffer.from(JSON.stringify({ bot: "review-pr", vars: { big: "x".repeat(size) }, idempotency_key: "huge" }));
    case 2:
      return Buffer.from(JSON.stringify({ ...prOpened, padding: Array.from({ length: Math.floor(size / 16) }, (_, i) => i) }));
    default:
      return Buffer.from(`{"a":"${"y".repeat(size)}`); // huge and truncated
  }
}

const nonUtf8 = (r: Prng) =>
  Buffer.concat([
    Buffer.from('{"bot":"review-pr","vars":{"k":"'),
    Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]),
    r.bytes(r.int(0, 64)),
    Buffer.from('"}}'),
  ]);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "",
  "application/json;;;",
  "*/*",
  "application/xml",
  "x".repeat(2000),
];

function providerHeaders(hook: Hook, body: Buffer, r: Prng, good: boolean): http.OutgoingHttpHeaders {
  const sig = good
    ? sign(hook.token, body)
    : r.pick([sign("wh_wrong", body), "0".repeat(64), "", "zz", "sha256=", r.bytes(32).toString("hex"), "x".repeat(8000)]);
  switch (hook.provider) {
    case "forge_b":
      return {
        "x-github-event":
          r.next() < 0.85 ? "pull_request" : r.pick(["issues", "issue_comment", "ping", "push", "pull_request_review_comment", "", "ünïcode", "x".repeat(300)]),
        "x-hub-signature-256": `sha256=${sig}`,
      };
    case "forge_c":
      return { "x-forgejo-event": r.next() < 0.85 ? "pull_request" : r.pick(["issues", "push", ""]), "x-forgejo-signature": sig };
    case "forge_a":
      return {
        "x-gitlab-event": r.pick(["Merge Request Hook", "Note Hook", "Issue Hook", "Push Hook", "", "merge request hook"]),
        "x-gitlab-token": good ? hook.token : r.pick(["wh_wrong", "", hook.token.slice(0, -1), "x".repeat(5000)]),
      };
    default:
      return r.next() < 0.5 ? { "x-service-webhook-token": good ? hook.token : "wh_nope" } : { "x-service-webhook-signature": `sha256=${sig}` };
  }
}

export function generate(seed: number, i: number, hooks: Hooks): Generated {
  const r = prng((seed ^ Math.imul(i + 1, 2654435761)) >>> 0);
  const all = [hooks.forgeB, hooks.forgeA, hooks.forgeC, hooks.generic, hooks.genericHmac];
  const hook = r.pick(all);
  const path = `/api/webhooks/${hook.provider}/${hook.id}`;
  const ct = () => ({ "content-type": r.next() < 0.8 ? "application/json" : r.pick(CONTENT_TYPES) });
  const roll = r.int(0, 99);

  if (roll < 12) {
    // Bad signatures and tokens on real payloads.
    const body = Buffer.from(
      JSON.stringify(hook.provider === "forge_a" ? gitlabMr : hook.provider.startsWith("forge") ? prOpened : { bot: "review-pr", vars: {} }),
    );
    return { kind: "http", category: "bad-signature", method: "POST", path, headers: { ...ct(), ...providerHeaders(hook, body, r, false) }, body };
  }
  if (roll < 22) {
    // Truncated bodies, signed over the truncated bytes (the parser sees them) or over the whole.
    const full = Buffer.from(
      JSON.stringify(hook.provider === "forge_a" ? gitlabMr : hook.provider === "generic" ? { bot: "review-pr", vars: { a: "1" } } : prOpened),
    );
    const body = full.subarray(0, r.int(0, full.length - 1));
    const signedOver = r.next() < 0.7 ? body : full;
    return { kind: "http", category: "truncated", method: "POST", path, headers: { ...ct(), ...providerHeaders(hook, signedOver, r, true) }, body };
  }
  if (roll < 23) {
    const body = hugeBody(r);
    return { kind: "http", category: "huge", method: "POST", path, headers: { ...ct(), ...providerHeaders(hook, body, r, r.next() < 0.5) }, body };
  }
  if (roll < 33) {
    // Bad JSON, correctly signed.
    const body = Buffer.from(
      r.pick([
        "{",
        "}",
        "[",
        "nul",
        "{'a':1}",
        '{"a":}',
        '{"a":1,}',
        "\u0000",
        "",
        "   ",
        "true",
        "1",
        '"str"',
        "[]",
        "null",
        '{"bot":',
        deepNest(r),
        '{"a":"\\ud800"}',
        '{"__proto__":{"polluted":1}}',
        "x".repeat(r.int(1, 3000)),
      ]),
    );
    return { kind: "http", category: "bad-json", method: "POST", path, headers: { ...ct(), ...providerHeaders(hook, body, r, true) }, body };
  }
  if (roll < 53) {
    // Valid signature over a structurally mutated payload: the parsers and filters see it all.
    let value: any;
    if (hook.provider === "forge_a") value = mutate(r, gitlabMr, r.int(1, 6));
    else if (hook.provider === "generic")
      value = mutate(r, { bot: r.pick(["review-pr", "converse", "nope", ""]), vars: { a: "1", b: "2" }, idempotency_key: `m-${i}`, default: 1 }, r.int(1, 4));
    else {
      const ex = r.next() < 0.7 ? { event: "pull_request", payload: prOpened } : r.pick(ghExamples);
      value = mutate(r, ex.payload, r.int(1, 8));
    }
    const body = Buffer.from(JSON.stringify(value));
    return {
      kind: "http",
      category: "mutated-signed",
      method: "POST",
      path,
      headers: { "content-type": "application/json", ...providerHeaders(hook, body, r, true) },
      body,
    };
  }
  if (roll < 63) {
    // Odd and duplicated headers.
    const body = Buffer.from(
      JSON.stringify(
        hook.provider === "generic" ? { bot: "review-pr", vars: {}, idempotency_key: `h-${i}` } : hook.provider === "forge_a" ? gitlabMr : prOpened,
      ),
    );
    const good = providerHeaders(hook, body, r, true);
    const headers: http.OutgoingHttpHeaders = { ...ct() };
    for (const [k, v] of Object.entries(good)) headers[k] = r.next() < 0.5 ? [String(v), String(providerHeaders(hook, body, r, false)[k] ?? "x")] : v;
    const extra = r.pick([
      { "content-encoding": "gzip" },
      { "content-encoding": "br, deflate" },
      { "x-github-delivery": "x".repeat(8000) },
      { "x-forwarded-for": "999.1.1.1, ::1, garbage" },
      { "content-type": ["application/json", "text/plain"] },
      { "x-hub-signature-256": ["sha256=00", "sha256=11", "sha256=22"] },
      { "transfer-encoding": "chunked" },
      { expect: "100-continue" },
      { "x-gitlab-event": ["Merge Request Hook", "Note Hook"] },
      { "x-service-webhook-token": ["a", "b"] },
      { authorization: "Bearer iap_nope" },
      { "x-github-event": "\u00ff\u00fe" },
      { accept: "x".repeat(4000) },
      { "content-length": String(body.length) },
    ]);
    Object.assign(headers, extra);
    return { kind: "http", category: "odd-headers", method: "POST", path, headers, body };
  }
  if (roll < 70) {
    // Unknown providers, unknown ids, odd paths.
    const p = r.pick([
      `/api/webhooks/bitbucket/${hook.id}`,
      `/api/webhooks/forge_z/${hook.id}`,
      `/api/webhooks/${hook.provider}/whk_${"0".repeat(20)}`,
      `/api/webhooks/${hook.provider}/${"x".repeat(200)}`,
      `/api/webhooks/${hook.provider}/`,
      `/api/webhooks/${hook.provider}/%00`,
      `/api/webhooks/${hook.provider}/%ff%fe`,
      `/api/webhooks//${hook.id}`,
      `/api/webhooks/${"p".repeat(100)}/${hook.id}`,
      `/api/webhooks/${hook.provider}/${hook.id}/extra`,
      `/api/webhooks/${hook.provider}/${hook.id}?x=${"%".repeat(50)}`,
      `/api/webhooks/github/${hooks.generic.id}`,
      `/api/webhooks/gitlab/${hooks.forgeB.id}`,
      `/api/webhooks/${hook.provider}/..%2f..%2fadmin`,
      `/api/webhooks/${hook.provider}/${hook.id}#frag`,
    ]);
    const body = Buffer.from(JSON.stringify(prOpened));
    return { kind: "http", category: "unknown-target", method: "POST", path: p, headers: { ...ct(), ...providerHeaders(hook, body, r, true) }, body };
  }
  if (roll < 75) {
    const body = r.next() < 0.5 ? Buffer.from("{}") : undefined;
    return {
      kind: "http",
      category: "wrong-method",
      method: r.pick(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "PROPFIND"]),
      path,
      headers: body ? { "content-type": "application/json" } : {},
      ...(body ? { body } : {}),
    };
  }
  if (roll < 82) {
    const body = r.next() < 0.5 ? nonUtf8(r) : r.bytes(r.int(1, 20_000));
    return { kind: "http", category: "non-utf8", method: "POST", path, headers: { ...ct(), ...providerHeaders(hook, body, r, true) }, body };
  }
  if (roll < 87) {
    // Generic bodies at and past the intake limits.
    const vars: Record<string, unknown> = r.pick([
      Object.fromEntries(Array.from({ length: r.int(250, 400) }, (_, k) => [`k${k}`, "v"])),
      { big: "x".repeat(r.int(4090, 5000)) },
      { "1bad": "v" },
      { "": "v" },
      { ["k".repeat(65)]: "v" },
      { a: { nested: true } },
      { a: [1, 2] },
      { a: 1 },
      { a: null },
      { __proto__: "x" } as Record<string, unknown>,
      { constructor: "x", toString: "y" },
    ]);
    const body = Buffer.from(
      JSON.stringify({
        bot: r.pick(["review-pr", "converse", "improve", "ghost", 1, null]),
        vars,
        idempotency_key: r.pick([`v-${i}`, "", null, 5, "k".repeat(5000)]),
      }),
    );
    const g = r.next() < 0.5 ? hooks.generic : hooks.genericHmac;
    return {
      kind: "http",
      category: "generic-limits",
      method: "POST",
      path: `/api/webhooks/generic/${g.id}`,
      headers: { "content-type": "application/json", ...providerHeaders(g, body, r, true) },
      body,
    };
  }
  if (roll < 92) {
    // The management API with garbage.
    const body = Buffer.from(
      r.pick(["{", `{"name":${"1".repeat(400)}}`, JSON.stringify({ name: weirdValue(r), monthly_run_quota: weirdValue(r) }), "[]", "null"]),
    );
    return {
      kind: "http",
      category: "management",
      method: r.pick(["POST", "PATCH", "GET"]),
      path: r.pick([
        "/api/admin/orgs",
        "/api/runs",
        "/api/users/me/tokens",
        `/api/teams/${"t".repeat(300)}/webhooks`,
        "/api/admin/orgs/%ff",
        "/metrics?x=1",
        "/readyz",
      ]),
      headers: {
        "content-type": "application/json",
        authorization: r.pick([`Bearer iap_${"x".repeat(43)}`, "Bearer ", "Basic abc", `Bearer ${"\u00ff".repeat(10)}`, `Bearer iap_${"y".repeat(5000)}`]),
      },
      body,
    };
  }
  // Malformed HTTP itself, over a raw socket.
  const target = `/api/webhooks/${hook.provider}/${hook.id}`;
  const raw = r.pick([
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"short":1}`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(20_000)}\r\n\r\n`,
    `POST /${"u".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `post ${target} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `POST ${target} HTTP/9.9\r\nHost: x\r\n\r\n`,
    `POST ${target}\r\n\r\n`,
    `\u0000\u0001\u0002GARBAGE\r\n\r\n`,
    `POST ${target} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n1\r\n"\r\n`,
  ]);
  const bytes = Buffer.concat([Buffer.from(raw, "latin1"), r.next() < 0.3 ? Buffer.from([0xff, 0xfe, 0x80]) : Buffer.alloc(0)]);
  return { kind: "raw", category: "raw-http", bytes };
}
