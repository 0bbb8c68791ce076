import { createVerify, type KeyObject } from "node:crypto";
import type { components } from "@octokit/openapi-types";
import type { Answer, FakeServer, RecordedRequest, Route } from "./fake-server.js";
import { WORLD, type DeepPartial } from "./world.js";

type Schemas = components["schemas"];
const json = (status: number, body: unknown): Answer => ({ status, body });
const unauthorized = json(401, { message: "A JSON web token could not be decoded", documentation_url: "https://docs.github.com/rest" });

export interface FakeAppOptions {
  id: number;
  slug: string;
  installationId: number;
  /** The app's public key: a JWT must verify under it. */
  publicKey: KeyObject;
  /** The forge's clock for installation tokens' expiry (epoch ms). */
  now: () => number;
}

/** A GitHub App on the fake GitHub: `GET /app` and installation tokens by JWT, the installation's repositories by token. */
export class FakeGitHubApp {
  readonly issued: {
    token: string;
    expiresAt: number;
    permissions: Record<string, string> | undefined;
    /** The repositories (names, without the owner) the token was narrowed to; undefined: every one of the installation. */
    repositories?: string[];
    revoked: boolean;
  }[] = [];
  /** Permissions the installation was granted: a token asking for more is refused (422), as GitHub does. */
  granted: Record<string, string> = {
    administration: "write",
    contents: "write",
    pull_requests: "write",
    metadata: "read",
    security_events: "read",
    vulnerability_alerts: "read",
    secret_scanning_alerts: "read",
  };
  readonly repositories: string[] = [WORLD.repo];

  private constructor(
    readonly server: FakeServer,
    private readonly o: FakeAppOptions,
  ) {}

  static mount(server: FakeServer, options: FakeAppOptions): FakeGitHubApp {
    const fake = new FakeGitHubApp(server, options);
    server.mount(fake.routes());
    return fake;
  }

  /** RS256 over `header.payload`, issued by this app ("iss" is its id). */
  private jwtValid(req: RecordedRequest): boolean {
    const m = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(String(req.headers.authorization ?? ""));
    if (!m) return false;
    const verify = createVerify("RSA-SHA256").update(`${m[1]}.${m[2]}`);
    if (!verify.verify(this.o.publicKey, Buffer.from(m[3]!, "base64url"))) return false;
    const payload = JSON.parse(Buffer.from(m[2]!, "base64url").toString("utf8")) as { iss?: unknown };
    return String(payload.iss) === String(this.o.id);
  }

  private tokenValid(req: RecordedRequest): boolean {
    const presented = String(req.headers.authorization ?? "").replace(/^(bearer|token) /i, "");
    return this.issued.some((t) => t.token === presented && !t.revoked && t.expiresAt > this.o.now());
  }

  private routes(): Route[] {
    return [
      {
        method: "GET",
        path: /^\/app$/,
        answer: (_p, req) => {
          if (!this.jwtValid(req)) return unauthorized;
          const body: DeepPartial<Schemas["integration"]> = { id: this.o.id, slug: this.o.slug, name: "Acme Review", owner: { login: "acme", id: 1 } };
          return json(200, body);
        },
      },
      {
        method: "POST",
        path: /^\/app\/installations\/(?<id>\d+)\/access_tokens$/,
        answer: ({ id }, req) => {
          if (!this.jwtValid(req)) return unauthorized;
          if (Number(id) !== this.o.installationId) return json(404, { message: "Not Found" });
          const asked = (req.body as { permissions?: Record<string, string> } | undefined)?.permissions;
          const repositories = (req.body as { repositories?: string[] } | undefined)?.repositories;
          const installed = new Set(this.repositories.map((r) => r.split("/")[1]));
          if (repositories?.some((r) => !installed.has(r))) {
            return json(422, {
              message: "There is at least one repository that does not exist or is not accessible to the parent installation.",
              documentation_url: "https://docs.github.com/rest",
            });
          }
          if (
            asked &&
            Object.entries(asked).some(([name, level]) => this.granted[name] === undefined || (level === "write" && this.granted[name] !== "write"))
          ) {
            return json(422, { message: "The permissions requested are not granted to this installation.", documentation_url: "https://docs.github.com/rest" });
          }
          const minted = {
            token: `ghs_installation${this.issued.length + 1}`,
            expiresAt: this.o.now() + 3_600_000,
            permissions: asked,
            ...(repositories && { repositories }),
            revoked: false,
          };
          this.issued.push(minted);
          const body: DeepPartial<Schemas["installation-token"]> = {
            token: minted.token,
            expires_at: new Date(minted.expiresAt).toISOString(),
            permissions: asked ?? this.granted,
            repository_selection: "selected",
          };
          return json(201, body);
        },
      },
      {
        method: "DELETE",
        path: /^\/installation\/token$/,
        answer: (_p, req) => {
          if (!this.tokenValid(req)) return json(401, { message: "Bad credentials" });
          const presented = String(req.headers.authorization).replace(/^(bearer|token) /i, "");
          this.issued.find((t) => t.token === presented)!.revoked = true;
          return { status: 204 };
        },
      },
      {
        method: "GET",
        path: /^\/installation\/repositories$/,
        answer: (_p, req) => {
          if (!this.tokenValid(req)) return json(401, { message: "Bad credentials" });
          const repositories = this.repositories.map(
            (full_name, i): DeepPartial<Schemas["repository"]> => ({ id: WORLD.repoId + i, full_name, name: full_name.split("/")[1] }),
          );
          return json(200, { total_count: repositories.length, repositories });
        },
      },
    ];
  }
}
