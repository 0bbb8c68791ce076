/** A small HTTP client over node:http: exact control of headers and bytes, keep-alive agents. */
import http from "node:http";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): any;
  /** performance.now() when the request's last byte was handed to the socket, and when the answer's head arrived. */
  sentAt: number;
  answeredAt: number;
}

export interface RequestOptions {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  agent?: http.Agent;
  timeoutMs?: number;
}

export const keepAlive = (maxSockets = 64) => new http.Agent({ keepAlive: true, maxSockets });

/** Resolves with any HTTP answer; rejects on a connection-level failure or the timeout. */
export function request(url: string, opts: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { ...opts.headers };
    if (opts.body !== undefined && headers["content-length"] === undefined && headers["transfer-encoding"] === undefined) {
      headers["content-length"] = Buffer.byteLength(opts.body);
    }
    let sentAt = Number.NaN;
    const req = http.request(url, { method: opts.method ?? "GET", headers, agent: opts.agent ?? false }, (res) => {
      const answeredAt = performance.now();
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: () => JSON.parse(text),
          sentAt,
          answeredAt,
        });
      });
    });
    req.setTimeout(opts.timeoutMs ?? 15_000, () => req.destroy(Object.assign(new Error("client timeout"), { code: "CLIENT_TIMEOUT" })));
    req.on("error", reject);
    req.on("finish", () => (sentAt = performance.now()));
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** JSON API client presenting a bearer token. */
export function api(base: string, token: string, agent?: http.Agent) {
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> => {
    const r = await request(base + path, {
      method,
      agent,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    let parsed: any = r.text;
    try {
      parsed = r.text ? JSON.parse(r.text) : undefined;
    } catch {
      // not JSON
    }
    return { status: r.status, body: parsed, headers: r.headers };
  };
  const must = async (method: string, path: string, body: unknown, expected: number[]) => {
    const r = await call(method, path, body);
    if (!expected.includes(r.status)) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return {
    call,
    get: (p: string) => must("GET", p, undefined, [200]),
    post: (p: string, b: unknown = {}) => must("POST", p, b, [200, 201]),
    put: (p: string, b: unknown) => must("PUT", p, b, [200, 201, 204]),
    patch: (p: string, b: unknown) => must("PATCH", p, b, [200]),
  };
}
export type Api = ReturnType<typeof api>;
