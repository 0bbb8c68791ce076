import { ServiceError } from "../core/errors.js";
import type { ForgeError } from "../forges/shared/forge-client.js";
import { toForgeError } from "../forges/shared/forge-errors.js";

/** A forge's refusal as the API answers it: the credential or request refused → 422, the forge failing → 502. */
export function forgeServiceError(error: ForgeError, doing: string): ServiceError {
  // One answer whatever is (or is not) there, so the API cannot map a private network.
  if (error.code === "forge_address_refused") return new ServiceError("forge_address_refused", error.reason, "base_url");
  const refused = error.code === "forge_denied" || error.code === "not_found" || error.code === "forge_rejected";
  return new ServiceError(refused ? "unprocessable" : "forge_unavailable", `the forge refused ${doing}: ${error.reason}`);
}

/** Runs a forge call, turning any throw into the API's error (never the library's message, which may quote a request). */
export async function onForge<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw forgeServiceError(
      toForgeError(err, () => undefined, Date.now()),
      doing,
    );
  }
}
