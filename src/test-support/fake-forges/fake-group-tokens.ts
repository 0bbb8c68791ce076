import type { AccessTokenExposedSchema, AccessTokenSchema } from "@gitbeaker/rest";
import type { Answer, FakeServer, Route } from "./fake-server.js";
import { IdSequence, WORLD } from "./world.js";

/** One group access token as the fake GitLab holds it. */
export interface StoredGroupToken {
  id: number;
  group: string;
  name: string;
  token: string;
  scopes: string[];
  accessLevel: number;
  expiresAt: string;
  revoked: boolean;
}

const json = (status: number, body: unknown): Answer => ({ status, body });

/**
 * GitLab's group access tokens on the fake GitLab, at the real paths: list, create, rotate (the
 * old one revoked, a new id) and revoke, under `/groups/:id/access_tokens`.
 * https://docs.gitlab.com/api/group_access_tokens/
 */
export class FakeGroupTokens {
  readonly tokens: StoredGroupToken[] = [];
  /** Groups the connection's token owns; any other answers 403 as GitLab does. */
  readonly ownedGroups = new Set<string>([WORLD.repo.split("/")[0]!]);
  private readonly ids = new IdSequence(9_000);

  private constructor(readonly server: FakeServer) {}

  static mount(server: FakeServer): FakeGroupTokens {
    const fake = new FakeGroupTokens(server);
    server.mount(fake.routes());
    return fake;
  }

  active(): StoredGroupToken[] {
    return this.tokens.filter((t) => !t.revoked);
  }

  private mint(group: string, name: string, scopes: string[], accessLevel: number, expiresAt: string): StoredGroupToken {
    const id = this.ids.take();
    const t = { id, group, name, token: `glpat-${String(id).padStart(20, "0")}`, scopes, accessLevel, expiresAt, revoked: false };
    this.tokens.push(t);
    return t;
  }

  private body(t: StoredGroupToken, exposed: boolean): AccessTokenSchema | AccessTokenExposedSchema {
    const body = {
      id: t.id,
      name: t.name,
      user_id: 500 + t.id,
      scopes: t.scopes as AccessTokenSchema["scopes"],
      expires_at: t.expiresAt,
      active: !t.revoked,
      revoked: t.revoked,
      created_at: WORLD.createdAt,
      access_level: t.accessLevel as AccessTokenSchema["access_level"],
    };
    return exposed ? { ...body, token: t.token } : body;
  }

  private routes(): Route[] {
    const base = "^/groups/(?<group>[^/]+)/access_tokens";
    const owned = (group: string) => this.ownedGroups.has(group);
    const forbidden = json(403, { message: "403 Forbidden" });
    const find = (p: Record<string, string>) => this.tokens.find((t) => t.group === p.group && t.id === Number(p.tokenId) && !t.revoked);
    return [
      {
        method: "GET",
        path: new RegExp(`${base}$`),
        answer: (p, _r, url) => {
          if (!owned(p.group!)) return forbidden;
          const state = url.searchParams.get("state");
          const listed = this.tokens.filter((t) => t.group === p.group && (state !== "active" || !t.revoked));
          return json(
            200,
            listed.map((t) => this.body(t, false)),
          );
        },
      },
      {
        method: "POST",
        path: new RegExp(`${base}$`),
        answer: (p, req) => {
          if (!owned(p.group!)) return forbidden;
          const b = req.body as { name?: string; scopes?: string[]; access_level?: number; expires_at?: string };
          if (!b.name || !b.scopes?.length || !b.expires_at) return json(400, { message: "name, scopes and expires_at are required" });
          return json(201, this.body(this.mint(p.group!, b.name, b.scopes, b.access_level ?? 40, b.expires_at), true));
        },
      },
      {
        method: "POST",
        path: new RegExp(`${base}/(?<tokenId>\\d+)/rotate$`),
        answer: (p, req) => {
          const old = find(p);
          if (!old) return json(404, { message: "404 Not Found" });
          old.revoked = true;
          const b = req.body as { expires_at?: string } | undefined;
          return json(200, this.body(this.mint(old.group, old.name, old.scopes, old.accessLevel, b?.expires_at ?? old.expiresAt), true));
        },
      },
      {
        method: "DELETE",
        path: new RegExp(`${base}/(?<tokenId>\\d+)$`),
        answer: (p) => {
          const t = find(p);
          if (!t) return json(404, { message: "404 Not Found" });
          t.revoked = true;
          return { status: 204 };
        },
      },
    ];
  }
}
