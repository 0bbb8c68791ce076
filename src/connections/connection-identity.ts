/** The connection a provisioned webhook was wired through, as deliveries need it. */
export interface ConnectionIdentity {
  provider: string;
  botLogin: string;
}

/**
 * Spec review rule 6: the connected account's login joins the bot identity set on forge_a
 * only. On forge_b and forge_c a token's login is a person's, not an app's bot, and joins
 * only when listed in review_request_logins.
 */
export function connectionBotLogins(connection: ConnectionIdentity | null): string[] {
  return connection?.provider === "forge_a" ? [connection.botLogin] : [];
}
