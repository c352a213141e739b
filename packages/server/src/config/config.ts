import type { loadConfig } from "./load-config.ts";

export type { ParsedConfig } from "./parse-config.ts";
export type { PlatformRole } from "./platform-roles.ts";

/**
 * The platform's configuration, resolved once at start-up and passed down: the
 * parsed settings with the keys kept in the data dir loaded, so `secretKey` is always present.
 */
export type Config = ReturnType<typeof loadConfig>;

/**
 * Where mail goes: an SMTP server; the dev mailbox (`/dev/mailbox`, kept in memory, opened with its
 * key); or nowhere (`WEFT_DEV_MAILBOX=off` without SMTP_URL: each mail is dropped with a warning).
 */
export type MailConfig = Config["mail"];
export type AuthRateLimits = Config["authRateLimits"];
export type WorkerConfig = Config["worker"];
export type { TrustedIssuer } from "./variable-schemas.ts";
