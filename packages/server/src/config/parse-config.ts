import { unlimitedPlan } from "../billing/plans.ts";
import { bytesPerMiB } from "../engine/egress/egress-limits.ts";
import type { SandboxConfig } from "../engine/sandbox/sandbox-config.ts";
import { isLoopbackAddress } from "../shared/loopback.ts";
import { type ConfigSettings, type ConfigVariable, configVariables } from "./config-variables.ts";
import type { PlatformRole } from "./platform-roles.ts";

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

function read(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function readVariable(env: Environment, name: string, variable: ConfigVariable<unknown>, cwd: string): unknown {
  const raw = read(env, name) ?? ("default" in variable ? variable.default : undefined);
  if (raw === undefined) return undefined;
  const parsed = variable.schema({ name, example: variable.example, cwd }).safeParse(raw);
  if (!parsed.success) throw new ConfigError(name, parsed.error.issues[0]?.message ?? `${name} is not valid`);
  return parsed.data;
}

/** Every variable of the table, read and checked in table order; throws ConfigError on the first bad one. */
export function readSettings(env: Environment, cwd: string): ConfigSettings {
  const settings: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(configVariables)) {
    settings[name] = readVariable(env, name, variable, cwd);
  }
  // Each value went through its own variable's schema, whose output type ConfigSettings names.
  return settings as ConfigSettings;
}

/**
 * Without SMTP_URL, mail is kept in the dev mailbox. That mailbox hands out approval links, so it is
 * enabled on its own (`auto`) only while the platform listens on loopback; on any other address
 * the operator must choose SMTP_URL, or say WEFT_DEV_MAILBOX=on (or off) explicitly.
 */
function mailOf(settings: ConfigSettings, roles: ReadonlySet<PlatformRole>) {
  const { SMTP_URL: smtpUrl, WEFT_DEV_MAILBOX: devMailbox, HOST: host } = settings;
  if (smtpUrl !== undefined) {
    if (devMailbox === "on") {
      throw new ConfigError(
        "WEFT_DEV_MAILBOX",
        "WEFT_DEV_MAILBOX=on contradicts SMTP_URL: mail goes over SMTP when SMTP_URL is set; unset one of them",
      );
    }
    return { kind: "smtp", url: smtpUrl } as const;
  }
  if (devMailbox === "off") return { kind: "dropped" } as const;
  if (devMailbox === "auto" && !isLoopbackAddress(host)) {
    // Only the authorization server sends mail: a process without it has nothing to keep or refuse.
    if (!roles.has("auth")) return { kind: "dropped" } as const;
    throw new ConfigError(
      "WEFT_DEV_MAILBOX",
      `HOST=${host} is not a loopback address and no SMTP_URL is set: set SMTP_URL=smtp://user:password@host:587 to send mail, or WEFT_DEV_MAILBOX=on to keep it in the dev mailbox (served to loopback clients only) or WEFT_DEV_MAILBOX=off to drop it`,
    );
  }
  return { kind: "outbox" } as const;
}

/**
 * The operator's plans, with the built-in `unlimited` unless they define their own plan of that
 * name, and the plan new workspaces get, which must be one of them.
 */
function plansOf(settings: ConfigSettings) {
  const configured = settings.WEFT_PLANS ?? [];
  const plans = configured.some((plan) => plan.name === unlimitedPlan.name)
    ? configured
    : [unlimitedPlan, ...configured];
  const defaultPlan = settings.WEFT_DEFAULT_PLAN;
  if (!plans.some((plan) => plan.name === defaultPlan)) {
    throw new ConfigError(
      "WEFT_DEFAULT_PLAN",
      `WEFT_DEFAULT_PLAN=${JSON.stringify(defaultPlan)} names no plan of WEFT_PLANS; the plans are ${plans.map((plan) => plan.name).join(", ")}`,
    );
  }
  return { plans, defaultPlan };
}

/**
 * The environment's settings, shaped as the code uses them: inferred from the variable table
 * (`config-variables.ts`) through `parseConfig`, never written out by hand.
 */
export type ParsedConfig = ReturnType<typeof parseConfig>;

/**
 * Parses the environment into the platform's settings, shaped as the code uses them. Pure apart
 * from reading WEFT_TRUSTED_ISSUERS from a file when it names one; throws ConfigError on the first
 * bad variable. The keys kept in the data dir are loaded afterwards, by `loadConfig`.
 */
export function parseConfig(env: Environment, cwd: string = process.cwd()) {
  const settings = readSettings(env, cwd);
  const baseUrl = settings.WEFT_BASE_URL ?? `http://localhost:${settings.PORT}`;
  const roles = settings.WEFT_ROLES;
  const dataDir = settings.WEFT_DATA_DIR;
  return {
    port: settings.PORT,
    host: settings.HOST,
    baseUrl,
    authUrl: settings.WEFT_AUTH_URL ?? baseUrl,
    dataDir,
    database:
      settings.DATABASE_URL === undefined
        ? ({ kind: "embedded", dataDir, durability: settings.WEFT_EMBEDDED_DURABILITY } as const)
        : ({ kind: "postgres", url: settings.DATABASE_URL } as const),
    mail: mailOf(settings, roles),
    mailFrom: settings.WEFT_MAIL_FROM,
    trustedIssuers: settings.WEFT_TRUSTED_ISSUERS ?? [],
    eventSchemaHost: settings.WEFT_EVENT_SCHEMA_HOST,
    /** Logo of this instance that agents may show at consent (`resource_logo_uri`, RFC 9728). */
    logoUrl: settings.WEFT_LOGO_URL,
    roles,
    /** Peers (IPs or CIDRs) whose `X-Forwarded-For` is believed; empty means the socket address is the client. */
    trustedProxies: settings.WEFT_TRUSTED_PROXIES ?? [],
    /** Requests per minute per client IP on each rate-limited authorization-server endpoint. */
    authRateLimits: {
      register: settings.WEFT_RATE_LIMIT_REGISTER,
      claim: settings.WEFT_RATE_LIMIT_CLAIM,
      revoke: settings.WEFT_RATE_LIMIT_REVOKE,
    },
    /** Submissions per minute per client IP and form on the programmatic form endpoint. */
    formsRateLimit: settings.WEFT_RATE_LIMIT_FORMS,
    /** As configured; `loadConfig` generates or loads it from the data dir when unset. */
    secretKey: settings.WEFT_SECRET_KEY,
    /** The key before a rotation: still opens stored secrets and checks tokens it signed, never seals or signs. */
    secretKeyPrevious: settings.WEFT_SECRET_KEY_PREVIOUS,
    logLevel: settings.WEFT_LOG_LEVEL,
    worker: {
      /** Most executions one worker process runs at once. */
      concurrency: settings.WEFT_WORKER_CONCURRENCY,
      leaseMs: settings.WEFT_WORKER_LEASE_SECONDS * 1000,
      /** Takeovers from a dead worker after which an execution fails instead of running again. */
      crashAttempts: settings.WEFT_CRASH_ATTEMPTS,
      pollIntervalMs: 1000,
      /** Memory cap of each sandbox child process. */
      memoryMb: settings.WEFT_WORKER_MEMORY_MB,
      /** Time limit of an attempt of a workflow without its own `timeout`. */
      defaultTimeoutMs: settings.WEFT_DEFAULT_TIMEOUT,
      /** Caps every workflow's timeout; `undefined` for no cap. */
      maxTimeoutMs: settings.WEFT_MAX_TIMEOUT,
      /** Share (0 to 1] of `concurrency` one workspace may hold at once. */
      workspaceShare: settings.WEFT_WORKSPACE_SHARE,
      /** How long a sandbox process running nothing is kept warm before it is stopped. */
      sandboxIdleMs: settings.WEFT_SANDBOX_IDLE_SECONDS * 1000,
      /** Days finished executions (unless their project says otherwise) and bookkeeping rows are kept. */
      retention: {
        executionDays: settings.WEFT_RETENTION_DAYS,
        bookkeepingDays: settings.WEFT_RETENTION_BOOKKEEPING_DAYS,
      },
    },
    sandbox: {
      /** `auto` isolates with bubblewrap when it works on the machine, else falls back to `process` with a warning. */
      mode: settings.WEFT_SANDBOX,
      /** `public`: no network in the sandbox except HTTP(S) through the platform's proxy to public addresses. */
      egress: settings.WEFT_SANDBOX_EGRESS,
      egressAllow: settings.WEFT_SANDBOX_EGRESS_ALLOW ?? [],
      /** Connections each sandbox process may hold to the egress proxy, and the bytes each execution may move through it. */
      egressLimits: {
        connectionsPerChild: settings.WEFT_EGRESS_CONNECTIONS,
        bytesPerExecution: settings.WEFT_EGRESS_MB_PER_EXECUTION * bytesPerMiB,
      },
      /** `auto` bounds each sandbox's CPU, memory and tasks with cgroups where the machine allows, else warns. */
      cgroups: settings.WEFT_SANDBOX_CGROUPS,
    } satisfies SandboxConfig,
    /**
     * Seconds the oldest execution ready to start may wait before ingress refuses new ones: 503 for
     * everyone when it could start now, 429 for its own workspace when its account's share holds it.
     */
    maxQueueDelaySeconds: settings.WEFT_MAX_QUEUE_DELAY,
    /** The plans workspaces may be on (quotas per month) and the one they start on. */
    billing: plansOf(settings),
    /** The prebuilt Studio app served at `{base_url}/studio`; `undefined` for the one in the server package. */
    studioDir: settings.WEFT_STUDIO_DIR,
    /** Base URL of an OpenTelemetry collector (OTLP/HTTP); spans are also sent there when set. */
    otlpEndpoint: settings.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
}
