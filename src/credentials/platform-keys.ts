import { sha256Hex } from "../core/secrets.js";
import { visibleLast4 } from "./credential-views.js";

/** A key the platform lends every team for a provider (`SERVICE_PLATFORM_KEY_<PROVIDER>`). */
export interface PlatformKey {
  provider: string;
  id: string;
  name: string;
  last4: string;
  fingerprint: string;
  value: string;
}

/** The platform keys of the configuration (provider → value), with the metadata runs and the ledger show. */
export function platformKeysOf(configured: Record<string, string>): PlatformKey[] {
  return Object.entries(configured).map(([provider, value]) => ({
    provider,
    id: `platform:${provider}`,
    name: `SERVICE_PLATFORM_KEY_${provider.toUpperCase()}`,
    last4: visibleLast4(value),
    fingerprint: sha256Hex(value),
    value,
  }));
}
