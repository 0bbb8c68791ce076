import { Type } from "typebox";
import { PASSWORD_MAX } from "../../core/passwords.js";
import { sendError } from "../error-handler.js";
import type { App, Services } from "../services.js";
import { Id } from "./schemas.js";

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX });
const Login = Type.Object({ login: Type.String({ minLength: 1, maxLength: 63 }), password: Password }, { additionalProperties: false });
const ResetConfirm = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }, { additionalProperties: false });
const PasswordChange = Type.Object(
  { password: Password, current_password: Type.Optional(Password), reset_token: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
const AdminPassword = Type.Object({ password: Password }, { additionalProperties: false });
const IdParams = Type.Object({ id: Id });

/** Sign-in, sessions and passwords. Login and reset confirmation are public by design. */
export function registerSignInRoutes(app: App, s: Services): void {
  const tags = ["sign-in"];
  app.post("/api/auth/login", { config: { public: true }, schema: { tags, body: Login, security: [] } }, async (req, reply) => {
    const outcome = await s.signIn.login(req.body.login, req.body.password, req.ip);
    switch (outcome.result) {
      case "success":
      case "password_change_required":
        return { token: outcome.token, session: outcome.session, password_change_required: outcome.result === "password_change_required" };
      case "invalid":
        return sendError(reply, "unauthenticated", "login or password is wrong");
      case "locked":
        return sendError(reply, "rate_limited", "too many failed sign-ins; try again later", undefined, outcome.retryAfter);
      default:
        return outcome satisfies never;
    }
  });
  app.post("/api/auth/password-reset/confirm", { config: { public: true }, schema: { tags, body: ResetConfirm, security: [] } }, async (req) =>
    s.passwords.confirmReset(req.body.token, req.body.password),
  );
  app.post("/api/auth/logout", { config: { duringPasswordChange: true }, schema: { tags } }, async (req, reply) => {
    await s.sessions.logout(req.principal);
    return reply.code(204).send();
  });

  app.put("/api/users/me/password", { config: { duringPasswordChange: true }, schema: { tags, body: PasswordChange } }, async (req) =>
    s.passwords.changeOwn(req.principal, req.body),
  );
  app.get("/api/users/me/sessions", { schema: { tags } }, async (req) => ({ sessions: await s.sessions.list(req.principal) }));
  app.delete("/api/users/me/sessions/:id", { schema: { tags, params: IdParams } }, async (req, reply) => {
    await s.sessions.revoke(req.principal, req.params.id);
    return reply.code(204).send();
  });

  app.put("/api/admin/users/:id/password", { schema: { tags, params: IdParams, body: AdminPassword } }, async (req) =>
    s.passwords.setByAdmin(req.principal, req.params.id, req.body.password),
  );
  app.post("/api/admin/users/:id/password-reset", { schema: { tags, params: IdParams } }, async (req, reply) =>
    reply.code(201).send(await s.passwords.issueReset(req.principal, req.params.id)),
  );
  app.delete("/api/admin/users/:id/sessions", { schema: { tags, params: IdParams } }, async (req) => s.sessions.closeAllFor(req.principal, req.params.id));
}
