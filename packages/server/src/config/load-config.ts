import { type Environment, type ParsedConfig, parseConfig } from "./parse-config.ts";
import { loadOrCreateDevMailboxKey, loadOrCreateSecretKey } from "./secret-key.ts";

/**
 * Completes parsed settings with the keys kept in the data dir (generated on first start): the
 * secret key unless WEFT_SECRET_KEY is set, and the dev mailbox's key when mail is kept there.
 * Throws ConfigError when a key file does not hold a key.
 */
export function withKeys(parsed: ParsedConfig) {
  return {
    ...parsed,
    secretKey: parsed.secretKey ?? loadOrCreateSecretKey(parsed.dataDir),
    mail:
      parsed.mail.kind === "outbox"
        ? { kind: "outbox" as const, key: loadOrCreateDevMailboxKey(parsed.dataDir) }
        : parsed.mail,
  };
}

/** The configuration a platform process runs with: the environment parsed, then its keys loaded. */
export function loadConfig(env: Environment, cwd: string = process.cwd()) {
  return withKeys(parseConfig(env, cwd));
}
