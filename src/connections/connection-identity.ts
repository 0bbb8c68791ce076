/** The connection a provisioned webhook was wired through, as deliveries need it. */
export interface ConnectionIdentity {
  provider: string;
  /** `token` or `app`. */
  auth: string;
  botLogin: string;
}

/**
 * Spec review rule 6: an App's bot login (`<slug>[bot]`) and, on forge_a only, the connected
 * account's login join the bot identity set. A token's login on forge_b and forge_c is a
 * person's, and joins only when listed in review_request_logins.
 */
export function connectionBotLogins(connection: ConnectionIdentity | null): string[] {
  if (connection === null) return [];
  return connection.auth === "app" || connection.provider === "forge_a" ? [connection.botLogin] : [];
}
