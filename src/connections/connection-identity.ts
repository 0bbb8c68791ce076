import { forges } from "../forges/registry.js";
import { providerNamed } from "../webhooks/provider-names.js";

/** The connection a provisioned webhook was wired through, as deliveries need it. */
export interface ConnectionIdentity {
  provider: string;
  /** `token` or `app`. */
  auth: string;
  botLogin: string;
}

/**
 * Spec review rule 6: an App's bot login (`<slug>[bot]`) and, where a connected token's login is
 * a bot of its own (forge_a, GitLab's access tokens), the connected account's login join the bot
 * identity set. A token's login on forge_b and forge_c is a person's, and joins only when listed
 * in review_request_logins.
 */
export function connectionBotLogins(connection: ConnectionIdentity | null): string[] {
  if (connection === null) return [];
  const provider = providerNamed(connection.provider);
  const tokenIsBot = provider !== undefined && provider !== "generic" && forges[provider].connecting.tokenLoginIsBot;
  return connection.auth === "app" || tokenIsBot ? [connection.botLogin] : [];
}
