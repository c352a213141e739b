import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./parse-config.ts";

/**
 * The key used to encrypt stored secrets and sign CSRF tokens. Without WEFT_SECRET_KEY it is
 * generated once into the data dir (mode 0600) so that it survives restarts. Several processes
 * sharing one PostgreSQL must share WEFT_SECRET_KEY instead.
 */
export function loadOrCreateSecretKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured !== undefined) return configured;
  const path = join(dataDir, "secret.key");
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, "utf8").trim(), "hex");
    if (key.length !== 32) {
      throw new ConfigError(
        "WEFT_SECRET_KEY",
        `${path} does not hold a 32-byte hex key: delete it to generate a new one, or set WEFT_SECRET_KEY`,
      );
    }
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  return key;
}
