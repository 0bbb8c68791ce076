import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent (still percent-encoded). */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, else the text ("" when there was none). */
  body: unknown;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A misbehaviour the fake shows instead of (or before) its normal answer. */
export interface Fault {
  /** Tested against "METHOD /path?query"; every request when absent. */
  match?: RegExp;
  /** How many matching requests it takes (default: all of them). */
  times?: number;
  /** Waits this long first; with nothing else set, then answers normally. */
  delayMs?: number;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Redirects to this absolute URL (302 unless `status` says another). */
  redirectTo?: string;
}

/** A route under the fake's API prefix; `path` is matched against the decoded-per-segment pathname. */
export interface Route {
  method: string;
  path: RegExp;
  /** A promise for routes that call out first (GitLab's hook test delivers before it answers). */
  answer(params: Record<string, string>, request: RecordedRequest, url: URL): Answer | Promise<Answer>;
}

/** A forge's API on 127.0.0.1, serving a route table under a prefix, recording every request. */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: http.Server,
    /** The API prefix, e.g. `/api/v4`. */
    readonly prefix: string,
    private readonly routes: Route[],
  ) {}

  static async start(prefix: string, routes: Route[]): Promise<FakeServer> {
    const server = http.createServer();
    const fake = new FakeServer(server, prefix, routes);
    server.on("request", (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** The web root, which a webhook's forge_base_url would name. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The API root, where the routes are. */
  get apiUrl(): string {
    return `${this.url}${this.prefix}`;
  }

  /** Serves more routes (a capability's fake kept in its own file), tried after the forge's own. */
  mount(routes: Route[]): void {
    this.routes.push(...routes);
  }

  fault(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** Drops the faults not yet taken, so one case's leftovers do not reach the next. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const json = (req.headers["content-type"] ?? "").includes("json") && text !== "";
    const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: json ? JSON.parse(text) : text };
    this.requests.push(recorded);
    const fault = this.takeFault(`${recorded.method} ${recorded.path}`);
    if (fault?.delayMs) await this.sleep(fault.delayMs);
    if (res.destroyed) return;
    if (fault?.redirectTo) return send(res, { status: fault.status ?? 302, headers: { location: fault.redirectTo, ...fault.headers } });
    if (fault?.status) return send(res, { status: fault.status, body: fault.body ?? { message: `fault ${fault.status}` }, headers: fault.headers });
    send(res, await this.route(recorded));
  }

  private route(request: RecordedRequest): Answer | Promise<Answer> {
    const url = new URL(request.path, this.url);
    if (url.pathname.startsWith(`${this.prefix}/`)) {
      const path = url.pathname.slice(this.prefix.length);
      for (const route of this.routes) {
        const m = route.method === request.method ? route.path.exec(path) : null;
        if (m) {
          const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
          return route.answer(params, request, url);
        }
      }
    }
    return { status: 404, body: { message: "Not Found" } };
  }

  private takeFault(line: string): Fault | undefined {
    const i = this.faults.findIndex((f) => (f.match ? f.match.test(line) : true));
    const fault = this.faults[i];
    if (fault === undefined) return undefined;
    if (fault.times !== undefined && --fault.times <= 0) this.faults.splice(i, 1);
    return fault;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }
}

function send(res: http.ServerResponse, answer: Answer): void {
  const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...(body !== "" && { "content-type": "application/json; charset=utf-8" }), ...answer.headers });
  res.end(body);
}
