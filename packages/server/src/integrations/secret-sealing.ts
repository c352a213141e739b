import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { derivePurposeKey } from "../shared/purpose-key.ts";

/**
 * Integration secrets at rest: AES-256-GCM under a key derived from WEFT_SECRET_KEY, a fresh 96-bit
 * nonce per value, and the project, integration and secret names bound as associated data, so a
 * sealed value copied to another project, integration or field does not open.
 */

const purpose = "weft integration secrets v1";
const nonceBytes = 12;
const tagBytes = 16;
const format = "v1";

/** A derived key and the id stored beside what it sealed, so the right key is tried on reading. */
export interface SealingKey {
  id: string;
  key: Buffer;
}

/** The key that seals, and during a rotation (WEFT_SECRET_KEY_PREVIOUS) the one that still opens. */
export interface SecretKeyring {
  current: SealingKey;
  previous: SealingKey | undefined;
}

export interface SecretBinding {
  projectId: string;
  integration: string;
  secret: string;
}

function sealingKeyOf(secretKey: Buffer): SealingKey {
  const key = derivePurposeKey(secretKey, purpose);
  // An HMAC of a label, not the key or a hash of it, so the stored id reveals nothing usable.
  const id = createHmac("sha256", key).update("key id", "utf8").digest("hex").slice(0, 16);
  return { id, key };
}

export function integrationKeyring(config: {
  secretKey: Buffer;
  secretKeyPrevious?: Buffer | undefined;
}): SecretKeyring {
  return {
    current: sealingKeyOf(config.secretKey),
    previous: config.secretKeyPrevious === undefined ? undefined : sealingKeyOf(config.secretKeyPrevious),
  };
}

function associatedData(binding: SecretBinding): Buffer {
  // Lengths prefix each part so that no two bindings serialise to the same bytes.
  return Buffer.from(
    [binding.projectId, binding.integration, binding.secret].map((part) => `${part.length}:${part}`).join("|"),
    "utf8",
  );
}

/** `v1.<nonce>.<ciphertext and tag>`, base64url. */
export function sealSecret(key: SealingKey, binding: SecretBinding, plaintext: string): string {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv("aes-256-gcm", key.key, nonce, { authTagLength: tagBytes });
  cipher.setAAD(associatedData(binding));
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${format}.${nonce.toString("base64url")}.${sealed.toString("base64url")}`;
}

/**
 * The plaintext of a sealed value, or `undefined` when no key of the ring opens it: the key it was
 * sealed with is gone, or the value was moved away from its binding or altered.
 */
export function openSecret(
  keyring: SecretKeyring,
  keyId: string,
  binding: SecretBinding,
  sealed: string,
): string | undefined {
  const key = [keyring.current, keyring.previous].find((candidate) => candidate?.id === keyId);
  const [version, nonceText, bodyText] = sealed.split(".");
  if (key === undefined || version !== format || nonceText === undefined || bodyText === undefined) return undefined;
  const nonce = Buffer.from(nonceText, "base64url");
  const body = Buffer.from(bodyText, "base64url");
  if (nonce.length !== nonceBytes || body.length < tagBytes) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.key, nonce, { authTagLength: tagBytes });
    decipher.setAAD(associatedData(binding));
    decipher.setAuthTag(body.subarray(body.length - tagBytes));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - tagBytes)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return undefined;
  }
}

/** The one wording of a secret that no key opens, for every surface that reads secrets. */
export const undecryptableSecretMessage = "integration secret could not be decrypted; was WEFT_SECRET_KEY changed?";

/**
 * What a reader may see of a secret: at most its last 4 characters, a quarter of a short value
 * (none below 4 characters), so the hint never gives away most of a value.
 */
export function secretHint(value: string): string {
  const characters = Array.from(value);
  const shown = Math.min(4, Math.floor(characters.length / 4));
  return `••••${characters.slice(characters.length - shown).join("")}`;
}
