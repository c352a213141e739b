import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./parse-config.ts";

/** How a generated key is written to its file in the data dir, and which variable to name when it is unreadable. */
interface KeyFile {
  fileName: string;
  encoding: "hex" | "base64url";
  /** The variable a ConfigError names when the file does not hold a key. */
  variable: string;
  /** What to do about a bad file, after "delete it to generate a new one". */
  remedy: string;
}

/**
 * A 32-byte key kept in the data dir: read when the file exists, otherwise generated once (mode
 * 0600, created exclusively so that two processes starting together cannot overwrite each other's).
 */
function loadOrCreateKeyFile(dataDir: string, file: KeyFile): Buffer {
  const path = join(dataDir, file.fileName);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, "utf8").trim(), file.encoding);
    if (key.length !== 32) {
      throw new ConfigError(
        file.variable,
        `${path} does not hold a 32-byte ${file.encoding} key: delete it to generate a new one${file.remedy}`,
      );
    }
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString(file.encoding)}\n`, { mode: 0o600, flag: "wx" });
  return key;
}

/**
 * The key used to encrypt stored secrets and sign CSRF tokens, when WEFT_SECRET_KEY is unset: it is
 * generated once into the data dir so that it survives restarts. Several processes sharing one
 * PostgreSQL must share WEFT_SECRET_KEY instead.
 */
export function loadOrCreateSecretKey(dataDir: string): Buffer {
  return loadOrCreateKeyFile(dataDir, {
    fileName: "secret.key",
    encoding: "hex",
    variable: "WEFT_SECRET_KEY",
    remedy: ", or set WEFT_SECRET_KEY",
  });
}

/** The dev mailbox's key (base64url), the lock of `/dev/mailbox?key=…` besides loopback. */
export function loadOrCreateDevMailboxKey(dataDir: string): string {
  return loadOrCreateKeyFile(dataDir, {
    fileName: "dev-mailbox.key",
    encoding: "base64url",
    variable: "WEFT_DEV_MAILBOX",
    remedy: "",
  }).toString("base64url");
}

/**
 * The keys a token signed by this platform is checked under: WEFT_SECRET_KEY, then during a
 * rotation WEFT_SECRET_KEY_PREVIOUS, so tokens issued before it stay valid until they expire.
 */
export function acceptedSecretKeys(config: { secretKey: Buffer; secretKeyPrevious?: Buffer | undefined }): Buffer[] {
  return config.secretKeyPrevious === undefined ? [config.secretKey] : [config.secretKey, config.secretKeyPrevious];
}
