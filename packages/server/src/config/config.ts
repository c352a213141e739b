import type { LevelWithSilent } from "pino";

export const platformRoles = ["auth", "api", "ingress", "worker"] as const;
export type PlatformRole = (typeof platformRoles)[number];

export interface TrustedIssuer {
  issuer: string;
  jwksUri: string;
  clientIds: string[];
}

export type DatabaseConfig = { kind: "embedded"; dataDir: string } | { kind: "postgres"; url: string };

/** Requests per minute per client IP on each rate-limited authorization-server endpoint. */
export interface AuthRateLimits {
  register: number;
  claim: number;
  revoke: number;
}

/**
 * Where mail goes: an SMTP server; the dev mailbox (`/dev/mailbox`, kept in memory); or nowhere
 * (`WEFT_DEV_MAILBOX=off` without SMTP_URL: each mail is dropped with a warning).
 */
export type MailConfig = { kind: "outbox" } | { kind: "smtp"; url: string } | { kind: "dropped" };

export interface WorkerConfig {
  /** Most executions one worker process runs at once. */
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Memory cap of each sandbox child process. */
  memoryMb: number;
  /** Time limit of an attempt of a workflow without its own `timeout`. */
  defaultTimeoutMs: number;
  /** Caps every workflow's timeout; `undefined` for no cap. */
  maxTimeoutMs: number | undefined;
  /** Share (0 to 1] of `concurrency` one workspace may hold at once. */
  workspaceShare: number;
}

export const sandboxModes = ["auto", "bwrap", "process"] as const;
export const sandboxEgressModes = ["public", "all"] as const;

/** A destination exempt from the egress proxy's refusal: a CIDR, or one host (name or IP) and port. */
export type EgressAllowEntry =
  | { kind: "cidr"; address: string; prefix: number; family: "ipv4" | "ipv6" }
  | { kind: "hostPort"; host: string; port: number };

export interface SandboxConfig {
  /** `auto` isolates with bubblewrap when it works on the machine, else falls back to `process` with a warning. */
  mode: (typeof sandboxModes)[number];
  /** `public`: no network in the sandbox except HTTP(S) through the platform's proxy to public addresses. */
  egress: (typeof sandboxEgressModes)[number];
  egressAllow: EgressAllowEntry[];
}

/** The platform's configuration, parsed once at start-up (see DESIGN.md §2) and passed down. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  authUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  mail: MailConfig;
  mailFrom: string;
  trustedIssuers: TrustedIssuer[];
  eventSchemaHost: string;
  /** Logo of this instance that agents may show at consent (`resource_logo_uri`, RFC 9728); none when unset. */
  logoUrl: string | undefined;
  roles: ReadonlySet<PlatformRole>;
  /** Peers (IPs or CIDRs) whose `X-Forwarded-For` is believed; empty means the socket address is the client. */
  trustedProxies: string[];
  authRateLimits: AuthRateLimits;
  /** Submissions per minute per client IP and form on the programmatic form endpoint. */
  formsRateLimit: number;
  /** 32 bytes; `undefined` until the platform loads or generates it from the data dir. */
  secretKey: Buffer | undefined;
  logLevel: LevelWithSilent;
  worker: WorkerConfig;
  /** How workflow code is isolated (WEFT_SANDBOX, WEFT_SANDBOX_EGRESS, WEFT_SANDBOX_EGRESS_ALLOW). */
  sandbox: SandboxConfig;
  /** Base URL of an OpenTelemetry collector (OTLP/HTTP); spans are also sent there when set. */
  otlpEndpoint: string | undefined;
}
