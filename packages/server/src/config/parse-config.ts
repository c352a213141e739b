import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { defaultAttemptTimeoutMs } from "../engine/attempt-timeout.ts";
import { defaultWorkspaceShare } from "../engine/workspace-share.ts";
import { isLoopbackAddress } from "../shared/loopback.ts";
import {
  type AuthRateLimits,
  type Config,
  type DatabaseConfig,
  type EgressAllowEntry,
  type MailConfig,
  type PlatformRole,
  platformRoles,
  type SandboxConfig,
  sandboxEgressModes,
  sandboxModes,
  type TrustedIssuer,
} from "./config.ts";

/** A configuration value that cannot be used. The message is one line: variable, problem, expected form. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

export type Environment = Readonly<Record<string, string | undefined>>;

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function read(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 3000;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(
      "PORT",
      `PORT=${JSON.stringify(raw)} is not a port number: expected an integer from 0 to 65535, for example PORT=3000`,
    );
  }
  return Number(raw);
}

function parsePublicUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} is not an absolute URL: expected an http(s) URL such as https://weft.example.com`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} uses ${url.protocol.replace(":", "")}, not http or https: expected an http(s) URL such as https://weft.example.com`,
    );
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} must not carry credentials, a query or a fragment: expected an http(s) URL such as https://weft.example.com`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

function parseDatabase(raw: string | undefined, dataDir: string): DatabaseConfig {
  if (raw === undefined) return { kind: "embedded", dataDir };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      "DATABASE_URL",
      "DATABASE_URL is not a URL: expected a PostgreSQL URL like postgres://user:password@host:5432/database",
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      "DATABASE_URL",
      `DATABASE_URL uses the unsupported scheme "${url.protocol.replace(":", "")}": expected a PostgreSQL URL like postgres://user:password@host:5432/database`,
    );
  }
  if (url.hostname === "" && !url.searchParams.has("host")) {
    throw new ConfigError(
      "DATABASE_URL",
      "DATABASE_URL names no host: expected a PostgreSQL URL like postgres://user:password@host:5432/database",
    );
  }
  return { kind: "postgres", url: raw };
}

const devMailboxModes = ["auto", "on", "off"] as const;

/**
 * Without SMTP_URL, mail is kept in the dev mailbox. That mailbox hands out approval links, so it is
 * enabled on its own (`auto`) only while the platform listens on loopback; on any other address
 * the operator must choose SMTP_URL, or say WEFT_DEV_MAILBOX=on (or off) explicitly.
 */
function parseMail(
  raw: string | undefined,
  devMailboxRaw: string | undefined,
  host: string,
  roles: ReadonlySet<PlatformRole>,
): MailConfig {
  const devMailbox = devMailboxRaw ?? "auto";
  if (!(devMailboxModes as readonly string[]).includes(devMailbox)) {
    throw new ConfigError(
      "WEFT_DEV_MAILBOX",
      `WEFT_DEV_MAILBOX=${JSON.stringify(devMailboxRaw)} is not a mode: expected auto, on or off`,
    );
  }
  if (raw !== undefined && devMailbox === "on") {
    throw new ConfigError(
      "WEFT_DEV_MAILBOX",
      "WEFT_DEV_MAILBOX=on contradicts SMTP_URL: mail goes over SMTP when SMTP_URL is set; unset one of them",
    );
  }
  if (raw === undefined) {
    if (devMailbox === "off") return { kind: "dropped" };
    if (devMailbox === "auto" && !isLoopbackAddress(host)) {
      // Only the authorization server sends mail: a process without it has nothing to keep or refuse.
      if (!roles.has("auth")) return { kind: "dropped" };
      throw new ConfigError(
        "WEFT_DEV_MAILBOX",
        `HOST=${host} is not a loopback address and no SMTP_URL is set: set SMTP_URL=smtp://user:password@host:587 to send mail, or WEFT_DEV_MAILBOX=on to keep it in the dev mailbox (served to loopback clients only) or WEFT_DEV_MAILBOX=off to drop it`,
      );
    }
    return { kind: "outbox" };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("SMTP_URL", "SMTP_URL is not a URL: expected smtp://user:password@host:587 or smtps://…");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new ConfigError(
      "SMTP_URL",
      `SMTP_URL uses the unsupported scheme "${url.protocol.replace(":", "")}": expected smtp://user:password@host:587 or smtps://…`,
    );
  }
  return { kind: "smtp", url: raw };
}

const trustedIssuersSchema = z
  .array(
    z.strictObject({
      issuer: z.url({ protocol: /^https?$/ }),
      jwks_uri: z.url({ protocol: /^https?$/ }),
      client_ids: z.array(z.string().min(1)).min(1),
    }),
  )
  .refine((issuers) => new Set(issuers.map((entry) => entry.issuer)).size === issuers.length, {
    message: "an issuer is listed twice",
  });

const trustedIssuersForm =
  'expected a JSON array like [{"issuer":"https://idp.example.com","jwks_uri":"https://idp.example.com/jwks","client_ids":["agent-1"]}] or the path of a file holding one';

function parseTrustedIssuers(raw: string | undefined, cwd: string): TrustedIssuer[] {
  if (raw === undefined) return [];
  let text = raw;
  if (!raw.startsWith("[") && !raw.startsWith("{")) {
    const path = isAbsolute(raw) ? raw : resolve(cwd, raw);
    if (!existsSync(path)) {
      throw new ConfigError(
        "WEFT_TRUSTED_ISSUERS",
        `WEFT_TRUSTED_ISSUERS=${JSON.stringify(raw)} is neither JSON nor the path of an existing file: ${trustedIssuersForm}`,
      );
    }
    text = readFileSync(path, "utf8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError("WEFT_TRUSTED_ISSUERS", `WEFT_TRUSTED_ISSUERS is not valid JSON: ${trustedIssuersForm}`);
  }
  const parsed = trustedIssuersSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new ConfigError(
      "WEFT_TRUSTED_ISSUERS",
      `WEFT_TRUSTED_ISSUERS is not a valid issuer list (${issue?.message ?? "invalid"}${where}): ${trustedIssuersForm}`,
    );
  }
  return parsed.data.map((entry) => ({
    issuer: entry.issuer,
    jwksUri: entry.jwks_uri,
    clientIds: entry.client_ids,
  }));
}

function parseRoles(raw: string | undefined): ReadonlySet<PlatformRole> {
  if (raw === undefined || raw === "all") return new Set(platformRoles);
  const names = raw.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(platformRoles as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError(
      "WEFT_ROLES",
      `WEFT_ROLES=${JSON.stringify(raw)} names unknown roles (${unknown.join(", ")}): expected "all" or a comma list of ${platformRoles.join(", ")}`,
    );
  }
  return new Set(names as PlatformRole[]);
}

function parseSecretKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) return Buffer.from(raw, "base64");
  throw new ConfigError(
    "WEFT_SECRET_KEY",
    "WEFT_SECRET_KEY is not a 32-byte key: expected 64 hex characters or 43 base64 characters, for example the output of `openssl rand -hex 32`",
  );
}

function parseTrustedProxies(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const entries = raw.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split("/");
    const family = isIP(address ?? "");
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        "WEFT_TRUSTED_PROXIES",
        `WEFT_TRUSTED_PROXIES names ${JSON.stringify(entry)}, which is not an IP address or CIDR: expected a comma list like 10.0.0.1,10.1.0.0/16,fd00::/8`,
      );
    }
  }
  return entries;
}

/** Defaults stay well under the 60 requests per minute per IP that the product allows at most. */
export const defaultAuthRateLimits: AuthRateLimits = { register: 20, claim: 30, revoke: 30 };

function parseRateLimit(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} is not a request count: expected a whole number of requests per minute per client IP, from 1 to 100000, for example ${name}=${fallback}`,
    );
  }
  return Number(raw);
}

function parseLogLevel(raw: string | undefined): Config["logLevel"] {
  if (raw === undefined) return "info";
  if (!(logLevels as readonly string[]).includes(raw)) {
    throw new ConfigError(
      "WEFT_LOG_LEVEL",
      `WEFT_LOG_LEVEL=${JSON.stringify(raw)} is not a log level: expected one of ${logLevels.join(", ")}`,
    );
  }
  return raw as Config["logLevel"];
}

function parseMailFrom(raw: string | undefined): string {
  if (raw === undefined) return "Weft <no-reply@localhost>";
  if (!/^[^<>@\s]+@[^<>@\s]+$/.test(raw) && !/^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(raw)) {
    throw new ConfigError(
      "WEFT_MAIL_FROM",
      `WEFT_MAIL_FROM=${JSON.stringify(raw)} is not a mail address: expected "Name <address@example.com>" or "address@example.com"`,
    );
  }
  return raw;
}

function parseInteger(
  name: string,
  raw: string | undefined,
  range: { min: number; max: number; fallback: number; example: number },
): number {
  if (raw === undefined) return range.fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} is not an integer from ${range.min} to ${range.max}: expected for example ${name}=${range.example}`,
    );
  }
  return value;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const maxTimeoutSetting = 7 * 24 * 3_600_000;

/** `15m`, `900s`, `2h` or milliseconds, from one second to seven days (the longest a workflow's own timeout may be). */
function parseTimeout(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw);
  const ms = match === null ? Number.NaN : Number(match[1]) * (durationUnits[match[2] ?? "ms"] ?? 1);
  if (!(ms >= 1000 && ms <= maxTimeoutSetting)) {
    throw new ConfigError(
      name,
      `${name}=${JSON.stringify(raw)} is not a duration from 1s to 7 days: expected minutes, seconds or milliseconds like ${name}=15m, 900s or 900000`,
    );
  }
  return ms;
}

function parseWorkspaceShare(raw: string | undefined): number {
  if (raw === undefined) return defaultWorkspaceShare;
  const share = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || !(share > 0 && share <= 1)) {
    throw new ConfigError(
      "WEFT_WORKSPACE_SHARE",
      `WEFT_WORKSPACE_SHARE=${JSON.stringify(raw)} is not a fraction above 0 and at most 1: expected the share of a worker's slots one workspace may hold, for example WEFT_WORKSPACE_SHARE=0.5`,
    );
  }
  return share;
}

function parseWorker(env: Environment): Config["worker"] {
  return {
    concurrency: parseInteger("WEFT_WORKER_CONCURRENCY", read(env, "WEFT_WORKER_CONCURRENCY"), {
      min: 1,
      max: 1000,
      fallback: 20,
      example: 20,
    }),
    leaseMs:
      parseInteger("WEFT_WORKER_LEASE_SECONDS", read(env, "WEFT_WORKER_LEASE_SECONDS"), {
        min: 2,
        max: 3600,
        fallback: 30,
        example: 30,
      }) * 1000,
    pollIntervalMs: 1000,
    memoryMb: parseInteger("WEFT_WORKER_MEMORY_MB", read(env, "WEFT_WORKER_MEMORY_MB"), {
      min: 32,
      max: 65536,
      fallback: 256,
      example: 256,
    }),
    defaultTimeoutMs:
      parseTimeout("WEFT_DEFAULT_TIMEOUT", read(env, "WEFT_DEFAULT_TIMEOUT")) ?? defaultAttemptTimeoutMs,
    maxTimeoutMs: parseTimeout("WEFT_MAX_TIMEOUT", read(env, "WEFT_MAX_TIMEOUT")),
    workspaceShare: parseWorkspaceShare(read(env, "WEFT_WORKSPACE_SHARE")),
  };
}

function parseChoice<T extends string>(name: string, raw: string | undefined, choices: readonly T[]): T {
  if (raw === undefined) return choices[0] as T;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not valid: expected one of ${choices.join(", ")}`);
  }
  return raw as T;
}

const egressAllowForm =
  "expected a comma list of CIDRs or host:port entries like 10.0.0.0/8,127.0.0.1,db.internal:8080,[::1]:9000";

function parseEgressAllowEntry(entry: string): EgressAllowEntry | undefined {
  const single = isIP(entry);
  if (single !== 0) {
    return { kind: "cidr", address: entry, prefix: single === 4 ? 32 : 128, family: single === 4 ? "ipv4" : "ipv6" };
  }
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (cidr !== null) {
    const family = isIP(cidr[1] ?? "");
    const prefix = Number(cidr[2]);
    if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
    return { kind: "cidr", address: cidr[1] ?? "", prefix, family: family === 4 ? "ipv4" : "ipv6" };
  }
  const hostPort = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
  if (hostPort === null) return undefined;
  const host = (hostPort[1] ?? hostPort[2] ?? "").toLowerCase();
  const port = Number(hostPort[3]);
  if (port < 1 || port > 65535 || (hostPort[1] !== undefined && isIP(host) !== 6)) return undefined;
  return { kind: "hostPort", host, port };
}

function parseEgressAllow(raw: string | undefined): EgressAllowEntry[] {
  if (raw === undefined) return [];
  return raw.split(",").map((text) => {
    const entry = text.trim();
    const parsed = parseEgressAllowEntry(entry);
    if (parsed === undefined) {
      throw new ConfigError(
        "WEFT_SANDBOX_EGRESS_ALLOW",
        `WEFT_SANDBOX_EGRESS_ALLOW names ${JSON.stringify(entry)}, which is neither a CIDR nor host:port: ${egressAllowForm}`,
      );
    }
    return parsed;
  });
}

function parseSandbox(env: Environment): SandboxConfig {
  return {
    mode: parseChoice("WEFT_SANDBOX", read(env, "WEFT_SANDBOX"), sandboxModes),
    egress: parseChoice("WEFT_SANDBOX_EGRESS", read(env, "WEFT_SANDBOX_EGRESS"), sandboxEgressModes),
    egressAllow: parseEgressAllow(read(env, "WEFT_SANDBOX_EGRESS_ALLOW")),
  };
}

/**
 * Parses the environment into a Config. Pure apart from reading WEFT_TRUSTED_ISSUERS from a file
 * when it names one; throws ConfigError on the first bad variable.
 */
export function parseConfig(env: Environment, cwd: string = process.cwd()): Config {
  const port = parsePort(read(env, "PORT"));
  const host = read(env, "HOST") ?? "127.0.0.1";
  const baseUrl = parsePublicUrl("WEFT_BASE_URL", read(env, "WEFT_BASE_URL") ?? `http://localhost:${port}`);
  const authUrlRaw = read(env, "WEFT_AUTH_URL");
  const authUrl = authUrlRaw === undefined ? baseUrl : parsePublicUrl("WEFT_AUTH_URL", authUrlRaw);
  const dataDir = resolve(cwd, read(env, "WEFT_DATA_DIR") ?? ".weft");
  const eventSchemaHostRaw = read(env, "WEFT_EVENT_SCHEMA_HOST");
  const otlpEndpointRaw = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const roles = parseRoles(read(env, "WEFT_ROLES"));
  const logoUrlRaw = read(env, "WEFT_LOGO_URL");
  return {
    port,
    host,
    baseUrl,
    authUrl,
    dataDir,
    database: parseDatabase(read(env, "DATABASE_URL"), dataDir),
    mail: parseMail(read(env, "SMTP_URL"), read(env, "WEFT_DEV_MAILBOX"), host, roles),
    mailFrom: parseMailFrom(read(env, "WEFT_MAIL_FROM")),
    trustedIssuers: parseTrustedIssuers(read(env, "WEFT_TRUSTED_ISSUERS"), cwd),
    eventSchemaHost:
      eventSchemaHostRaw === undefined
        ? "https://schemas.workos.com"
        : parsePublicUrl("WEFT_EVENT_SCHEMA_HOST", eventSchemaHostRaw),
    logoUrl: logoUrlRaw === undefined ? undefined : parsePublicUrl("WEFT_LOGO_URL", logoUrlRaw),
    roles,
    trustedProxies: parseTrustedProxies(read(env, "WEFT_TRUSTED_PROXIES")),
    authRateLimits: {
      register: parseRateLimit(
        "WEFT_RATE_LIMIT_REGISTER",
        read(env, "WEFT_RATE_LIMIT_REGISTER"),
        defaultAuthRateLimits.register,
      ),
      claim: parseRateLimit("WEFT_RATE_LIMIT_CLAIM", read(env, "WEFT_RATE_LIMIT_CLAIM"), defaultAuthRateLimits.claim),
      revoke: parseRateLimit(
        "WEFT_RATE_LIMIT_REVOKE",
        read(env, "WEFT_RATE_LIMIT_REVOKE"),
        defaultAuthRateLimits.revoke,
      ),
    },
    formsRateLimit: parseRateLimit("WEFT_RATE_LIMIT_FORMS", read(env, "WEFT_RATE_LIMIT_FORMS"), 60),
    secretKey: parseSecretKey(read(env, "WEFT_SECRET_KEY")),
    logLevel: parseLogLevel(read(env, "WEFT_LOG_LEVEL")),
    worker: parseWorker(env),
    sandbox: parseSandbox(env),
    otlpEndpoint:
      otlpEndpointRaw === undefined ? undefined : parsePublicUrl("OTEL_EXPORTER_OTLP_ENDPOINT", otlpEndpointRaw),
  };
}
