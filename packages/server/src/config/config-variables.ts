import { defaultMaxQueueDelaySeconds } from "../backpressure/backpressure.ts";
import { embeddedDurabilities } from "../db/embedded-durability.ts";
import { defaultAttemptTimeoutMs } from "../engine/attempt-timeout.ts";
import { defaultCrashAttempts } from "../engine/crash-attempts.ts";
import { bytesPerMiB, defaultEgressLimits } from "../engine/egress/egress-limits.ts";
import { sandboxCgroupModes, sandboxEgressModes, sandboxModes } from "../engine/sandbox/sandbox-config.ts";
import { defaultWorkspaceShare } from "../engine/workspace-share.ts";
import { defaultRetentionPeriods } from "../retention/prune-history.ts";
import { platformRoles } from "./platform-roles.ts";
import {
  addressList,
  choice,
  duration,
  egressAllowList,
  integerBetween,
  key32,
  mailAddress,
  nameSet,
  path,
  planCatalogue,
  planName,
  portNumber,
  postgresUrl,
  publicUrl,
  requestCount,
  slotShare,
  smtpUrl,
  text,
  trustedIssuers,
  type VariableSchema,
} from "./variable-schemas.ts";

/**
 * One environment variable. `default` is text parsed exactly like a set value, so a default can
 * never be invalid; a variable without one is `undefined` when unset, and `unset` says what that
 * means (the README's Default column).
 */
export type ConfigVariable<T> =
  | { schema: VariableSchema<T>; example: string; default: string }
  | { schema: VariableSchema<T>; example: string; unset: string };

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export const devMailboxModes = ["auto", "on", "off"] as const;

/**
 * Every variable the platform reads, in the order it reports a bad one. The README's
 * configuration table lists exactly these, with these defaults (a test checks it).
 */
export const configVariables = {
  PORT: { schema: portNumber, default: "3000", example: "3000" },
  HOST: { schema: text, default: "127.0.0.1", example: "0.0.0.0" },
  WEFT_BASE_URL: { schema: publicUrl, unset: "`http://localhost:$PORT`", example: "https://weft.example.com" },
  WEFT_AUTH_URL: { schema: publicUrl, unset: "`WEFT_BASE_URL`", example: "https://weft.example.com" },
  WEFT_DATA_DIR: { schema: path, default: "./.weft", example: "/var/lib/weft" },
  DATABASE_URL: {
    schema: postgresUrl,
    unset: "unset → embedded",
    example: "postgres://user:password@host:5432/database",
  },
  WEFT_EMBEDDED_DURABILITY: {
    schema: choice(embeddedDurabilities, "a durability"),
    default: "full",
    example: "relaxed",
  },
  SMTP_URL: { schema: smtpUrl, unset: "unset → dev outbox", example: "smtp://user:password@host:587" },
  WEFT_DEV_MAILBOX: { schema: choice(devMailboxModes, "a mode"), default: "auto", example: "on" },
  WEFT_MAIL_FROM: { schema: mailAddress, default: "Weft <no-reply@localhost>", example: "Weft <weft@example.com>" },
  WEFT_TRUSTED_ISSUERS: {
    schema: trustedIssuers,
    unset: "none (ID-JAG disabled)",
    example:
      '[{"issuer":"https://idp.example.com","jwks_uri":"https://idp.example.com/jwks","client_ids":["agent-1"]}]',
  },
  WEFT_EVENT_SCHEMA_HOST: {
    schema: publicUrl,
    default: "https://schemas.workos.com",
    example: "https://schemas.workos.com",
  },
  WEFT_LOGO_URL: { schema: publicUrl, unset: "none", example: "https://weft.example.com/logo.png" },
  WEFT_ROLES: { schema: nameSet(platformRoles), default: "all", example: "auth,api,ingress" },
  WEFT_SECRET_KEY: { schema: key32, unset: "generated into the data dir", example: "0f".repeat(32) },
  WEFT_SECRET_KEY_PREVIOUS: { schema: key32, unset: "none (no rotation under way)", example: "1e".repeat(32) },
  WEFT_TRUSTED_PROXIES: { schema: addressList, unset: "none", example: "10.0.0.1,10.1.0.0/16,fd00::/8" },
  WEFT_RATE_LIMIT_REGISTER: { schema: requestCount, default: "20", example: "20" },
  WEFT_RATE_LIMIT_CLAIM: { schema: requestCount, default: "30", example: "30" },
  WEFT_RATE_LIMIT_REVOKE: { schema: requestCount, default: "30", example: "30" },
  WEFT_RATE_LIMIT_FORMS: { schema: requestCount, default: "60", example: "60" },
  WEFT_LOG_LEVEL: { schema: choice(logLevels, "a log level"), default: "info", example: "debug" },
  WEFT_WORKER_CONCURRENCY: { schema: integerBetween(1, 1000), default: "100", example: "100" },
  WEFT_WORKER_LEASE_SECONDS: { schema: integerBetween(2, 3600), default: "30", example: "30" },
  WEFT_CRASH_ATTEMPTS: { schema: integerBetween(1, 100), default: String(defaultCrashAttempts), example: "3" },
  WEFT_WORKER_MEMORY_MB: { schema: integerBetween(32, 65536), default: "256", example: "256" },
  WEFT_DEFAULT_TIMEOUT: { schema: duration, default: `${defaultAttemptTimeoutMs / 60_000}m`, example: "15m" },
  WEFT_MAX_TIMEOUT: { schema: duration, unset: "none", example: "2h" },
  WEFT_WORKSPACE_SHARE: { schema: slotShare, default: String(defaultWorkspaceShare), example: "0.5" },
  WEFT_MAX_QUEUE_DELAY: {
    schema: integerBetween(1, 3600),
    default: String(defaultMaxQueueDelaySeconds),
    example: "5",
  },
  WEFT_RETENTION_DAYS: {
    schema: integerBetween(1, 36500),
    default: String(defaultRetentionPeriods.executionDays),
    example: "90",
  },
  WEFT_RETENTION_BOOKKEEPING_DAYS: {
    schema: integerBetween(1, 36500),
    default: String(defaultRetentionPeriods.bookkeepingDays),
    example: "7",
  },
  WEFT_SANDBOX: { schema: choice(sandboxModes), default: "auto", example: "bwrap" },
  WEFT_SANDBOX_IDLE_SECONDS: { schema: integerBetween(1, 86400), default: "300", example: "300" },
  WEFT_SANDBOX_EGRESS: { schema: choice(sandboxEgressModes), default: "public", example: "all" },
  WEFT_SANDBOX_EGRESS_ALLOW: {
    schema: egressAllowList,
    unset: "none",
    example: "10.0.0.0/8,127.0.0.1,db.internal:8080,[::1]:9000",
  },
  WEFT_EGRESS_CONNECTIONS: {
    schema: integerBetween(1, 10_000),
    default: String(defaultEgressLimits.connectionsPerChild),
    example: "64",
  },
  WEFT_EGRESS_MB_PER_EXECUTION: {
    schema: integerBetween(1, 1_048_576),
    default: String(defaultEgressLimits.bytesPerExecution / bytesPerMiB),
    example: "64",
  },
  WEFT_SANDBOX_CGROUPS: { schema: choice(sandboxCgroupModes, "a mode"), default: "auto", example: "on" },
  WEFT_PLANS: {
    schema: planCatalogue,
    unset: "one plan, `unlimited`",
    example:
      '[{"name":"free","executionsPerMonth":1000,"stepSecondsPerMonth":3600,"projects":3,"storageBytes":104857600}]',
  },
  WEFT_DEFAULT_PLAN: { schema: planName, default: "unlimited", example: "free" },
  WEFT_STUDIO_DIR: {
    schema: path,
    unset: "`packages/server/studio-dist`",
    example: "/opt/weft/studio-dist",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    schema: publicUrl,
    unset: "unset (no export)",
    example: "http://collector.internal:4318",
  },
} as const satisfies Record<string, ConfigVariable<unknown>>;

export type ConfigVariableName = keyof typeof configVariables;

/** The value of each variable: always present when it has a default, else possibly `undefined`. */
export type ConfigSettings = {
  -readonly [K in ConfigVariableName]: (typeof configVariables)[K] extends {
    schema: VariableSchema<infer T>;
    default: string;
  }
    ? T
    : (typeof configVariables)[K] extends { schema: VariableSchema<infer T> }
      ? T | undefined
      : never;
};
