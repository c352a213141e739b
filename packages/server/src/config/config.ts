import type { loadConfig } from "./load-config.ts";
import type { parseConfig } from "./parse-config.ts";

export const platformRoles = ["auth", "api", "ingress", "worker"] as const;
export type PlatformRole = (typeof platformRoles)[number];

export const sandboxModes = ["auto", "bwrap", "process"] as const;
export const sandboxEgressModes = ["public", "all"] as const;
export const sandboxCgroupModes = ["auto", "on", "off"] as const;

/**
 * The environment's settings, shaped as the code uses them: inferred from the variable table
 * (`config-variables.ts`) through `parseConfig`, never written out by hand.
 */
export type ParsedConfig = ReturnType<typeof parseConfig>;

/**
 * The platform's configuration, resolved once at start-up and passed down: the
 * parsed settings with the keys kept in the data dir loaded, so `secretKey` is always present.
 */
export type Config = ReturnType<typeof loadConfig>;

export type DatabaseConfig = Config["database"];
/**
 * Where mail goes: an SMTP server; the dev mailbox (`/dev/mailbox`, kept in memory, opened with its
 * key); or nowhere (`WEFT_DEV_MAILBOX=off` without SMTP_URL: each mail is dropped with a warning).
 */
export type MailConfig = Config["mail"];
export type AuthRateLimits = Config["authRateLimits"];
export type WorkerConfig = Config["worker"];
/** How workflow code is isolated and bounded (WEFT_SANDBOX, WEFT_SANDBOX_EGRESS, WEFT_SANDBOX_EGRESS_ALLOW, WEFT_SANDBOX_CGROUPS). */
export type SandboxConfig = Config["sandbox"];
export type { EgressAllowEntry, TrustedIssuer } from "./variable-schemas.ts";
