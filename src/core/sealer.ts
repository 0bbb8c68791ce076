import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** A sealed value: AES-256-GCM ciphertext with its nonce and tag, and the id of its key. */
export interface Sealed {
  keyId: string;
  /** base64url of nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes). */
  blob: string;
}

export class SealError extends Error {}

const NONCE = 12;
const TAG = 16;

/**
 * Seals secrets at rest, bound to a context (a webhook id, a key id) given as associated
 * data, so a blob copied onto another record does not open. Keys rotate by id: new values
 * seal under the current key, old ones open under the key named beside them.
 */
export class Sealer {
  private readonly keys: Map<string, Buffer>;

  constructor(
    private readonly currentKeyId: string,
    keys: Record<string, Buffer>,
  ) {
    this.keys = new Map(Object.entries(keys));
    for (const [id, key] of this.keys) {
      if (key.length !== 32) throw new SealError(`seal key ${id} must be 32 bytes`);
    }
    if (!this.keys.has(currentKeyId)) throw new SealError(`seal key ${currentKeyId} is not loaded`);
  }

  seal(plaintext: string, context: string): Sealed {
    return this.sealBytes(Buffer.from(plaintext, "utf8"), context);
  }

  sealBytes(plaintext: Buffer, context: string): Sealed {
    const nonce = randomBytes(NONCE);
    const cipher = createCipheriv("aes-256-gcm", this.keys.get(this.currentKeyId)!, nonce, { authTagLength: TAG });
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: this.currentKeyId, blob: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url") };
  }

  open(sealed: Sealed, context: string): string {
    return this.openBytes(sealed, context).toString("utf8");
  }

  openBytes(sealed: Sealed, context: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new SealError(`seal key ${sealed.keyId} is not loaded`);
    const raw = Buffer.from(sealed.blob, "base64url");
    if (raw.length < NONCE + TAG) throw new SealError("sealed value is truncated");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE), { authTagLength: TAG });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE, raw.length - TAG)), decipher.final()]);
    } catch {
      throw new SealError("sealed value does not open under this key and context");
    }
  }
}
