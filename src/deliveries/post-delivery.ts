import http from "node:http";
import https from "node:https";

/** Why no HTTP answer came back: the kinds an operator fixes differently. */
export type UnreachableCause = "refused" | "timeout" | "dns" | "tls" | "reset" | "network";

/** What a POST over the network gave: the endpoint's answer, or why none came. */
export type Posted =
  | {
      kind: "answered";
      status: number;
      /** Where a redirect pointed, if it was one. */
      location: string | null;
      /** The answer's JSON object, or null when it was not one (a proxy's page, another server). */
      json: Record<string, unknown> | null;
      /** The answer's first characters when it was not a JSON object. */
      text: string | null;
    }
  | { kind: "unreachable"; cause: UnreachableCause; message: string };

/** The part of an answer kept: this service's delivery answers are a few hundred bytes. */
const ANSWER_CAP = 64 * 1024;
const EXCERPT = 300;

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA"]);
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "HPE_INVALID_CONSTANT", "HPE_INVALID_STATUS"]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "ETIME", "ESOCKETTIMEDOUT"]);

/** A network error's kind, from its `code` (an AggregateError's first inner code when it has none). */
export function unreachableCause(err: unknown): UnreachableCause {
  const e = err as { code?: unknown; errors?: { code?: unknown }[] } | null;
  const code = String(e?.code ?? e?.errors?.find((x) => x?.code)?.code ?? "");
  if (code === "ECONNREFUSED") return "refused";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (DNS_CODES.has(code)) return "dns";
  if (RESET_CODES.has(code)) return "reset";
  // OpenSSL's (ERR_SSL_*), Node's certificate checks (CERT_*, *_CERT*, ERR_TLS_*) and a plain-HTTP answer to TLS (EPROTO).
  if (/^ERR_SSL_|^ERR_TLS_|CERT|^EPROTO$|^UNABLE_TO_|SIGNATURE_FAILURE/.test(code)) return "tls";
  return "network";
}

/**
 * POSTs a delivery to a URL over the network, as a forge would: once, no redirect followed,
 * certificates checked, the whole exchange bounded by `timeoutMs`. Plain node:http, not fetch:
 * fetch refuses ports a forge would call (its "bad ports") and hides the socket's error codes.
 */
export function postDelivery(url: string, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<Posted> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (p: Posted) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(p);
    };
    const target = new URL(url);
    const send = target.protocol === "https:" ? https.request : http.request;
    const req = send(target, { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let held = 0;
      res.on("data", (c: Buffer) => {
        if (held < ANSWER_CAP) chunks.push(c);
        held += c.length;
      });
      res.on("error", (err) => done({ kind: "unreachable", cause: unreachableCause(err), message: err.message }));
      res.on("end", () => {
        const location = res.headers.location ?? null;
        done({ kind: "answered", status: res.statusCode ?? 0, location, ...readAnswer(Buffer.concat(chunks).subarray(0, ANSWER_CAP).toString("utf8")) });
      });
    });
    const timer = setTimeout(() => {
      done({ kind: "unreachable", cause: "timeout", message: `no answer within ${timeoutMs / 1000} s` });
      req.destroy();
    }, timeoutMs);
    req.on("error", (err) => done({ kind: "unreachable", cause: unreachableCause(err), message: err.message || String((err as { code?: string }).code) }));
    req.end(body);
  });
}

function readAnswer(text: string): { json: Record<string, unknown> | null; text: string | null } {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return { json: v as Record<string, unknown>, text: null };
  } catch {
    // Not JSON: shown as text.
  }
  return { json: null, text: text.slice(0, EXCERPT) };
}
