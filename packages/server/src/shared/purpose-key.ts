import { hkdfSync } from "node:crypto";

/**
 * A 32-byte key for one purpose, derived from WEFT_SECRET_KEY with HKDF-SHA-256 and the purpose as
 * its info label, so the secret key itself never signs or encrypts anything directly and no two
 * purposes share a key.
 */
export function derivePurposeKey(secretKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secretKey, Buffer.alloc(0), purpose, 32));
}
