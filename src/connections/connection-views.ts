import { iso } from "../core/iso.js";
import type { ForgeConnectionRow, RepoBotRow } from "../store/forge-connections.js";
import { gateContextOf } from "./repo-bot-fields.js";

/** A connection as the API shows it: never the credential, only its last four characters. */
export function connectionView(c: ForgeConnectionRow) {
  return {
    id: c.id,
    team_id: c.team_id,
    provider: c.provider,
    base_url: c.base_url,
    auth: c.auth,
    bot_login: c.bot_login,
    token_last4: c.token_last4,
    webhook_base_url: c.webhook_base_url,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

export function repoBotView(r: RepoBotRow, webhookId: string | null) {
  return {
    id: r.id,
    connection_id: r.connection_id,
    repo: r.repo,
    webhook_id: webhookId,
    hook_id: r.hook_id,
    hook_url: r.hook_url,
    // A context stored empty before empty meant none is none too.
    gate_context: gateContextOf(r.gate_context),
    auto_fix_on_gate_failure: r.auto_fix_on_gate_failure === 1,
    review_after_gate: r.review_after_gate === 1,
    security_read:
      r.security_secret_id === null
        ? { enabled: false }
        : { enabled: true, secret_id: r.security_secret_id, expires_at: r.security_expires_at === null ? null : iso(r.security_expires_at) },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
