import type { CredentialTier, UsageReport } from "./usage-report.js";

/** A key the service handed the attempt, as the ledger knows it. */
export interface HandedKeyFacts {
  provider: string;
  fingerprint: string;
  tier: CredentialTier;
}

/** The meter row a report is charged to (with the tenant, month and repository). */
export interface Attribution {
  fingerprint: string;
  provider: string;
  tier: CredentialTier;
}

/**
 * Which key a usage report is charged to: the key the service handed the attempt for the
 * report's provider, whatever fingerprint and tier the bot reports, so a bot cannot charge a
 * key it was not given. The bot's own fingerprint and tier count only where the service handed
 * nothing for the provider; a report that cannot be attributed is charged to nobody (null).
 */
export function attributeUsage(report: Pick<UsageReport, "fingerprint" | "provider" | "tier">, handed: readonly HandedKeyFacts[]): Attribution | null {
  if (report.provider !== null) {
    const key = handed.find((k) => k.provider === report.provider);
    if (key) return charge(key);
  } else if (handed.length > 0) {
    // No provider named: the handed key with the reported fingerprint, or the only one handed.
    const key = handed.find((k) => k.fingerprint === report.fingerprint) ?? (handed.length === 1 ? handed[0] : undefined);
    return key ? charge(key) : null;
  }
  return report.fingerprint && report.tier ? { fingerprint: report.fingerprint, provider: report.provider ?? "", tier: report.tier } : null;
}

const charge = (k: HandedKeyFacts): Attribution => ({ fingerprint: k.fingerprint, provider: k.provider, tier: k.tier });
