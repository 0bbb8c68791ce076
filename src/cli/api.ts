/** The API refused the call: its status and the `error` and `detail` of its body. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail: string,
  ) {
    super(`${error}: ${detail}`);
  }
}

/** The command line itself is wrong (exit 2): a missing sign-in, a malformed option. */
export class UsageError extends Error {}

/** A JSON client of the service's HTTP API: the CLI's only way in. */
export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  get = <T = any>(path: string) => this.call<T>("GET", path);
  post = <T = any>(path: string, body: unknown = {}) => this.call<T>("POST", path, body);
  patch = <T = any>(path: string, body: unknown) => this.call<T>("PATCH", path, body);

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.send(method, path, body, "application/json")).parsed as T;
  }

  /** Any call, its answer's text as sent (`remote api`); a refusal throws as every call's does. */
  async raw(method: string, path: string, body?: unknown): Promise<{ text: string; headers: Headers }> {
    const { text, headers } = await this.send(method, path, body, "application/json, text/plain;q=0.9, */*;q=0.1");
    return { text, headers };
  }

  /** A GET answered with text (a run's log), with the answer's headers. */
  async text(path: string): Promise<{ text: string; headers: Headers }> {
    const { text, headers } = await this.send("GET", path, undefined, "text/plain");
    return { text, headers };
  }

  private async send(method: string, path: string, body: unknown, accept: string): Promise<{ text: string; parsed: unknown; headers: Headers }> {
    const headers: Record<string, string> = { accept };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    } catch (err) {
      throw new ApiRefusal(0, "unreachable", `cannot reach ${this.baseUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    const parsed = text && (!res.ok || accept === "application/json") ? parseJson(text) : undefined;
    if (!res.ok) {
      const e = parsed as { error?: unknown; detail?: unknown } | undefined;
      throw new ApiRefusal(
        res.status,
        typeof e?.error === "string" ? e.error : `http_${res.status}`,
        typeof e?.detail === "string" ? e.detail : text.slice(0, 200),
      );
    }
    return { text, parsed, headers: res.headers };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const enc = encodeURIComponent;
