import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Sealer } from "../core/sealer.js";
import type { Config } from "./config.js";

const keyId = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 12);

/**
 * The sealer for secrets at rest. SERVICE_SEAL_KEY wins; otherwise the key lives in
 * `<data dir>/seal.key` (mode 0600), made on first start. Retired keys still open old values.
 */
export function loadSealer(config: Config, log: (message: string) => void): Sealer {
  let current: Buffer;
  if (config.sealKey) {
    current = Buffer.from(config.sealKey, "base64");
  } else {
    const file = path.join(config.dataDir, "seal.key");
    if (fs.existsSync(file)) {
      current = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
    } else {
      fs.mkdirSync(config.dataDir, { recursive: true });
      current = randomBytes(32);
      fs.writeFileSync(file, `${current.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
      log(`created a new seal key at ${file}; back it up: sealed secrets cannot be opened without it`);
    }
  }
  const keys: Record<string, Buffer> = { [keyId(current)]: current };
  for (const retired of config.sealKeysRetired) {
    const key = Buffer.from(retired, "base64");
    keys[keyId(key)] = key;
  }
  return new Sealer(keyId(current), keys);
}
