import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.ts";
import { ConfigError, parseConfig } from "../src/config/parse-config.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env, "/srv/weft");
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("uses the documented defaults when nothing is set", () => {
    const config = parseConfig({}, "/srv/weft");
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      baseUrl: "http://localhost:3000",
      authUrl: "http://localhost:3000",
      dataDir: "/srv/weft/.weft",
      database: { kind: "embedded", dataDir: "/srv/weft/.weft", durability: "full" },
      mail: { kind: "outbox" },
      mailFrom: "Weft <no-reply@localhost>",
      trustedIssuers: [],
      eventSchemaHost: "https://schemas.workos.com",
      logoUrl: undefined,
      secretKey: undefined,
      logLevel: "info",
      worker: { concurrency: 100, leaseMs: 30_000, pollIntervalMs: 1000, memoryMb: 256 },
      otlpEndpoint: undefined,
    });
    expect([...config.roles]).toEqual(["auth", "api", "ingress", "worker"]);
  });

  it("reads the embedded database's durability", () => {
    expect(parseConfig({ WEFT_EMBEDDED_DURABILITY: "relaxed" }, "/srv/weft").database).toEqual({
      kind: "embedded",
      dataDir: "/srv/weft/.weft",
      durability: "relaxed",
    });
  });

  it("derives the base URL from PORT and the auth URL from the base URL", () => {
    expect(parseConfig({ PORT: "8080" }).baseUrl).toBe("http://localhost:8080");
    const config = parseConfig({ WEFT_BASE_URL: "https://weft.example.com/" });
    expect(config.baseUrl).toBe("https://weft.example.com");
    expect(config.authUrl).toBe("https://weft.example.com");
  });

  it("reads every variable it documents", () => {
    const key = "ab".repeat(32);
    const config = parseConfig(
      {
        PORT: "4000",
        HOST: "0.0.0.0",
        WEFT_BASE_URL: "https://api.example.com",
        WEFT_AUTH_URL: "https://auth.example.com",
        WEFT_DATA_DIR: "/var/lib/weft",
        DATABASE_URL: "postgres://weft:pw@db.internal:5432/weft",
        SMTP_URL: "smtp://user:pass@mail.internal:587",
        WEFT_MAIL_FROM: "Weft <weft@example.com>",
        WEFT_TRUSTED_ISSUERS: JSON.stringify([
          { issuer: "https://idp.example.com", jwks_uri: "https://idp.example.com/jwks", client_ids: ["agent"] },
        ]),
        WEFT_EVENT_SCHEMA_HOST: "https://schemas.example.com",
        WEFT_LOGO_URL: "https://cdn.example.com/weft-logo.png",
        WEFT_ROLES: "api,worker",
        WEFT_SECRET_KEY: key,
        WEFT_LOG_LEVEL: "debug",
        WEFT_WORKER_CONCURRENCY: "50",
        WEFT_WORKER_LEASE_SECONDS: "10",
        WEFT_WORKER_MEMORY_MB: "512",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector.internal:4318/",
      },
      "/srv",
    );
    expect(config).toMatchObject({
      port: 4000,
      host: "0.0.0.0",
      baseUrl: "https://api.example.com",
      authUrl: "https://auth.example.com",
      dataDir: "/var/lib/weft",
      database: { kind: "postgres", url: "postgres://weft:pw@db.internal:5432/weft" },
      mail: { kind: "smtp", url: "smtp://user:pass@mail.internal:587" },
      mailFrom: "Weft <weft@example.com>",
      trustedIssuers: [
        { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", clientIds: ["agent"] },
      ],
      eventSchemaHost: "https://schemas.example.com",
      logoUrl: "https://cdn.example.com/weft-logo.png",
      logLevel: "debug",
      worker: { concurrency: 50, leaseMs: 10_000, memoryMb: 512 },
      otlpEndpoint: "http://collector.internal:4318",
    });
    expect([...config.roles]).toEqual(["api", "worker"]);
    expect(config.secretKey?.toString("hex")).toBe(key);
  });

  it("reads trusted proxies and rate limits, with limits of at most 60 per minute by default", () => {
    const defaults = parseConfig({}, "/srv/weft");
    expect(defaults.trustedProxies).toEqual([]);
    expect(Object.values(defaults.authRateLimits).every((limit) => limit >= 1 && limit <= 60)).toBe(true);
    const config = parseConfig(
      {
        WEFT_TRUSTED_PROXIES: "10.0.0.1, 10.1.0.0/16,fd00::/8",
        WEFT_RATE_LIMIT_REGISTER: "5",
        WEFT_RATE_LIMIT_CLAIM: "6",
        WEFT_RATE_LIMIT_REVOKE: "7",
      },
      "/srv/weft",
    );
    expect(config.trustedProxies).toEqual(["10.0.0.1", "10.1.0.0/16", "fd00::/8"]);
    expect(config.authRateLimits).toEqual({ register: 5, claim: 6, revoke: 7 });
  });

  it("limits programmatic form submissions to 60 per minute per client IP and form unless told otherwise", () => {
    expect(parseConfig({}, "/srv/weft").formsRateLimit).toBe(60);
    expect(parseConfig({ WEFT_RATE_LIMIT_FORMS: "600" }, "/srv/weft").formsRateLimit).toBe(600);
  });

  it("keeps mail in the dev mailbox on loopback, and asks for a choice on any other HOST", () => {
    expect(parseConfig({ HOST: "::1" }, "/srv/weft").mail).toEqual({ kind: "outbox" });
    expect(parseConfig({ HOST: "localhost" }, "/srv/weft").mail).toEqual({ kind: "outbox" });
    expect(parseConfig({ HOST: "0.0.0.0", WEFT_DEV_MAILBOX: "on" }, "/srv/weft").mail).toEqual({ kind: "outbox" });
    expect(parseConfig({ HOST: "0.0.0.0", WEFT_DEV_MAILBOX: "off" }, "/srv/weft").mail).toEqual({ kind: "dropped" });
    expect(parseConfig({ WEFT_DEV_MAILBOX: "off" }, "/srv/weft").mail).toEqual({ kind: "dropped" });
    expect(parseConfig({ HOST: "0.0.0.0", SMTP_URL: "smtp://mail:25" }, "/srv/weft").mail.kind).toBe("smtp");
    expect(parseConfig({ HOST: "0.0.0.0", WEFT_ROLES: "api,worker" }, "/srv/weft").mail).toEqual({ kind: "dropped" });
  });

  it("has one plan, unlimited, by default, and reads WEFT_PLANS inline or from a file", () => {
    expect(parseConfig({}, "/srv/weft").billing).toEqual({ plans: [{ name: "unlimited" }], defaultPlan: "unlimited" });
    const dir = mkdtempSync(join(tmpdir(), "weft-config-"));
    writeFileSync(join(dir, "plans.json"), JSON.stringify([{ name: "free", executionsPerMonth: 100, projects: 1 }]));
    expect(parseConfig({ WEFT_PLANS: "plans.json", WEFT_DEFAULT_PLAN: "free" }, dir).billing).toEqual({
      plans: [{ name: "unlimited" }, { name: "free", executionsPerMonth: 100, projects: 1 }],
      defaultPlan: "free",
    });
    expect(parseConfig({ WEFT_PLANS: '{"name":"unlimited","projects":5}' }, dir).billing.plans).toEqual([
      { name: "unlimited", projects: 5 },
    ]);
  });

  it("reads WEFT_TRUSTED_ISSUERS from a file when it names one", () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-config-"));
    const entries = [
      { issuer: "https://idp.example.com", jwks_uri: "https://idp.example.com/jwks", client_ids: ["a"] },
    ];
    writeFileSync(join(dir, "issuers.json"), JSON.stringify(entries));
    expect(parseConfig({ WEFT_TRUSTED_ISSUERS: "issuers.json" }, dir).trustedIssuers).toHaveLength(1);
  });

  it.each([
    [{ PORT: "abc" }, "PORT", /PORT="abc" is not a port number: expected an integer from 0 to 65535/],
    [{ PORT: "70000" }, "PORT", /PORT="70000" is not a port number/],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL", /unsupported scheme "mysql": expected a PostgreSQL URL/],
    [{ DATABASE_URL: "not a url" }, "DATABASE_URL", /DATABASE_URL is not a URL/],
    [
      { WEFT_EMBEDDED_DURABILITY: "fast" },
      "WEFT_EMBEDDED_DURABILITY",
      /WEFT_EMBEDDED_DURABILITY="fast" is not a durability: expected full or relaxed/,
    ],
    [
      { WEFT_TRUSTED_ISSUERS: "not-json" },
      "WEFT_TRUSTED_ISSUERS",
      /neither JSON nor the path of an existing file: expected a JSON array/,
    ],
    [{ WEFT_TRUSTED_ISSUERS: "[{" }, "WEFT_TRUSTED_ISSUERS", /is not valid JSON: expected a JSON array/],
    [{ WEFT_PLANS: '[{"name":"free"' }, "WEFT_PLANS", /WEFT_PLANS is not valid JSON: expected a JSON array/],
    [
      { WEFT_PLANS: "plans.json" },
      "WEFT_PLANS",
      /WEFT_PLANS="plans.json" is neither JSON nor the path of an existing file/,
    ],
    [
      { WEFT_PLANS: '[{"name":"free","executionsPerMonth":-1}]' },
      "WEFT_PLANS",
      /WEFT_PLANS is not a valid plan list .*executionsPerMonth/,
    ],
    [{ WEFT_PLANS: '[{"name":"free","seats":3}]' }, "WEFT_PLANS", /WEFT_PLANS is not a valid plan list/],
    [{ WEFT_PLANS: '[{"name":"free"},{"name":"free"}]' }, "WEFT_PLANS", /a plan name is listed twice/],
    [{ WEFT_DEFAULT_PLAN: "gold" }, "WEFT_DEFAULT_PLAN", /WEFT_DEFAULT_PLAN="gold" names no plan of WEFT_PLANS/],
    [
      { WEFT_PLANS: '[{"name":"free","projects":1}]', WEFT_DEFAULT_PLAN: "team" },
      "WEFT_DEFAULT_PLAN",
      /names no plan of WEFT_PLANS; the plans are unlimited, free/,
    ],
    [
      { WEFT_TRUSTED_ISSUERS: '[{"issuer":"https://a"}]' },
      "WEFT_TRUSTED_ISSUERS",
      /not a valid issuer list .*jwks_uri/,
    ],
    [
      { WEFT_BASE_URL: "localhost:3000" },
      "WEFT_BASE_URL",
      /uses localhost, not http or https: expected an http\(s\) URL/,
    ],
    [{ WEFT_BASE_URL: "/relative" }, "WEFT_BASE_URL", /is not an absolute URL: expected an http\(s\) URL/],
    [{ WEFT_BASE_URL: "ftp://example.com" }, "WEFT_BASE_URL", /uses ftp, not http or https/],
    [{ WEFT_AUTH_URL: "nope" }, "WEFT_AUTH_URL", /WEFT_AUTH_URL="nope" is not an absolute URL/],
    [{ SMTP_URL: "http://mail" }, "SMTP_URL", /unsupported scheme "http": expected smtp:/],
    [{ WEFT_MAIL_FROM: "nobody" }, "WEFT_MAIL_FROM", /is not a mail address/],
    [{ WEFT_DEV_MAILBOX: "yes" }, "WEFT_DEV_MAILBOX", /WEFT_DEV_MAILBOX="yes" is not a mode: expected auto, on or off/],
    [
      { HOST: "0.0.0.0" },
      "WEFT_DEV_MAILBOX",
      /HOST=0.0.0.0 is not a loopback address .* set SMTP_URL=.* or WEFT_DEV_MAILBOX=on/,
    ],
    [{ WEFT_DEV_MAILBOX: "on", SMTP_URL: "smtp://mail:25" }, "WEFT_DEV_MAILBOX", /contradicts SMTP_URL/],
    [{ WEFT_ROLES: "api,web" }, "WEFT_ROLES", /names unknown roles \(web\)/],
    [{ WEFT_SECRET_KEY: "short" }, "WEFT_SECRET_KEY", /is not a 32-byte key/],
    [{ WEFT_LOG_LEVEL: "loud" }, "WEFT_LOG_LEVEL", /is not a log level/],
    [{ WEFT_WORKER_CONCURRENCY: "0" }, "WEFT_WORKER_CONCURRENCY", /is not an integer from 1 to 1000/],
    [{ WEFT_WORKER_CONCURRENCY: "many" }, "WEFT_WORKER_CONCURRENCY", /is not an integer from 1 to 1000/],
    [{ WEFT_WORKER_LEASE_SECONDS: "1" }, "WEFT_WORKER_LEASE_SECONDS", /is not an integer from 2 to 3600/],
    [{ WEFT_WORKER_MEMORY_MB: "16" }, "WEFT_WORKER_MEMORY_MB", /is not an integer from 32 to 65536/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT", /not http or https/],
    [{ WEFT_EVENT_SCHEMA_HOST: "schemas" }, "WEFT_EVENT_SCHEMA_HOST", /is not an absolute URL/],
    [{ WEFT_LOGO_URL: "logo.png" }, "WEFT_LOGO_URL", /WEFT_LOGO_URL="logo.png" is not an absolute URL/],
    [{ WEFT_LOGO_URL: "data:image/png;base64,AAAA" }, "WEFT_LOGO_URL", /uses data, not http or https/],
    [
      { WEFT_TRUSTED_PROXIES: "10.0.0.1,proxy" },
      "WEFT_TRUSTED_PROXIES",
      /names "proxy", which is not an IP address or CIDR/,
    ],
    [{ WEFT_TRUSTED_PROXIES: "10.0.0.0/33" }, "WEFT_TRUSTED_PROXIES", /not an IP address or CIDR/],
    [{ WEFT_RATE_LIMIT_REGISTER: "0" }, "WEFT_RATE_LIMIT_REGISTER", /is not a request count: expected a whole number/],
    [{ WEFT_RATE_LIMIT_CLAIM: "ten" }, "WEFT_RATE_LIMIT_CLAIM", /is not a request count/],
    [{ WEFT_RATE_LIMIT_REVOKE: "1.5" }, "WEFT_RATE_LIMIT_REVOKE", /is not a request count/],
    [{ WEFT_RATE_LIMIT_FORMS: "-1" }, "WEFT_RATE_LIMIT_FORMS", /is not a request count/],
  ])("refuses %o", (env, variable, message) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });

  it("never repeats a secret value in its message", () => {
    expect(configError({ WEFT_SECRET_KEY: "hunter2-secret" }).message).not.toContain("hunter2");
    expect(configError({ DATABASE_URL: "mysql://root:hunter2@db/x" }).message).not.toContain("hunter2");
  });
});

describe("parseConfig: the sandbox", () => {
  it("isolates with bubblewrap when it can and keeps egress to public addresses by default", () => {
    expect(parseConfig({}, "/srv/weft").sandbox).toEqual({
      mode: "auto",
      egress: "public",
      egressAllow: [],
      egressLimits: { connectionsPerChild: 64, bytesPerExecution: 64 * 1024 * 1024 },
      cgroups: "auto",
    });
  });

  it("reads WEFT_SANDBOX, WEFT_SANDBOX_EGRESS and the CIDRs and host:port entries of WEFT_SANDBOX_EGRESS_ALLOW", () => {
    const config = parseConfig({
      WEFT_SANDBOX: "bwrap",
      WEFT_SANDBOX_EGRESS: "all",
      WEFT_SANDBOX_EGRESS_ALLOW: "10.0.0.0/8, 127.0.0.1/32,fd00::/8,Db.Internal:8080,[::1]:9000,127.0.0.1:5000",
      WEFT_SANDBOX_CGROUPS: "on",
      WEFT_EGRESS_CONNECTIONS: "8",
      WEFT_EGRESS_MB_PER_EXECUTION: "2",
    });
    expect(config.sandbox).toEqual({
      mode: "bwrap",
      egress: "all",
      egressAllow: [
        { kind: "cidr", address: "10.0.0.0", prefix: 8, family: "ipv4" },
        { kind: "cidr", address: "127.0.0.1", prefix: 32, family: "ipv4" },
        { kind: "cidr", address: "fd00::", prefix: 8, family: "ipv6" },
        { kind: "hostPort", host: "db.internal", port: 8080 },
        { kind: "hostPort", host: "::1", port: 9000 },
        { kind: "hostPort", host: "127.0.0.1", port: 5000 },
      ],
      egressLimits: { connectionsPerChild: 8, bytesPerExecution: 2 * 1024 * 1024 },
      cgroups: "on",
    });
    expect(parseConfig({ WEFT_SANDBOX: "process" }).sandbox.mode).toBe("process");
  });

  it.each([
    [
      { WEFT_SANDBOX: "docker" },
      "WEFT_SANDBOX",
      /WEFT_SANDBOX="docker" is not valid: expected one of auto, bwrap, process/,
    ],
    [{ WEFT_SANDBOX_EGRESS: "none" }, "WEFT_SANDBOX_EGRESS", /expected one of public, all/],
    [{ WEFT_EGRESS_CONNECTIONS: "0" }, "WEFT_EGRESS_CONNECTIONS", /is not an integer from 1 to 10000/],
    [
      { WEFT_EGRESS_MB_PER_EXECUTION: "64MiB" },
      "WEFT_EGRESS_MB_PER_EXECUTION",
      /"64MiB" is not an integer from 1 to 1048576: expected for example WEFT_EGRESS_MB_PER_EXECUTION=64/,
    ],
    [
      { WEFT_SANDBOX_EGRESS_ALLOW: "10.0.0.0/33" },
      "WEFT_SANDBOX_EGRESS_ALLOW",
      /names "10.0.0.0\/33", which is neither/,
    ],
    [{ WEFT_SANDBOX_EGRESS_ALLOW: "internal" }, "WEFT_SANDBOX_EGRESS_ALLOW", /names "internal", which is neither/],
    [{ WEFT_SANDBOX_EGRESS_ALLOW: "db:99999" }, "WEFT_SANDBOX_EGRESS_ALLOW", /names "db:99999"/],
    [{ WEFT_SANDBOX_EGRESS_ALLOW: "[db]:80" }, "WEFT_SANDBOX_EGRESS_ALLOW", /names "\[db\]:80"/],
    [{ WEFT_SANDBOX_EGRESS_ALLOW: "10.0.0.1,,db:80" }, "WEFT_SANDBOX_EGRESS_ALLOW", /names "", which is neither/],
    [
      { WEFT_SANDBOX_CGROUPS: "yes" },
      "WEFT_SANDBOX_CGROUPS",
      /WEFT_SANDBOX_CGROUPS="yes" is not a mode: expected auto, on or off/,
    ],
  ])("refuses %o", (env, variable, message) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });
});

describe("parseConfig: attempt timeouts and the workspace share", () => {
  it("defaults to a 15-minute timeout for every attempt, no maximum, and half a worker per workspace", () => {
    expect(parseConfig({}, "/srv/weft").worker).toMatchObject({
      defaultTimeoutMs: 900_000,
      maxTimeoutMs: undefined,
      workspaceShare: 0.5,
    });
  });

  it("reads durations in minutes, seconds, hours or milliseconds, and a fraction", () => {
    const env = { WEFT_DEFAULT_TIMEOUT: "900s", WEFT_MAX_TIMEOUT: "2h", WEFT_WORKSPACE_SHARE: "0.25" };
    expect(parseConfig(env, "/srv/weft").worker).toMatchObject({
      defaultTimeoutMs: 900_000,
      maxTimeoutMs: 7_200_000,
      workspaceShare: 0.25,
    });
    expect(parseConfig({ WEFT_DEFAULT_TIMEOUT: "15m" }).worker.defaultTimeoutMs).toBe(900_000);
    expect(parseConfig({ WEFT_DEFAULT_TIMEOUT: "60000" }).worker.defaultTimeoutMs).toBe(60_000);
    expect(parseConfig({ WEFT_WORKSPACE_SHARE: "1" }).worker.workspaceShare).toBe(1);
  });

  it.each([
    [{ WEFT_DEFAULT_TIMEOUT: "soon" }, "WEFT_DEFAULT_TIMEOUT", /is not a duration from 1s to 7 days: expected/],
    [{ WEFT_DEFAULT_TIMEOUT: "500ms" }, "WEFT_DEFAULT_TIMEOUT", /is not a duration from 1s to 7 days/],
    [{ WEFT_DEFAULT_TIMEOUT: "8d" }, "WEFT_DEFAULT_TIMEOUT", /is not a duration from 1s to 7 days/],
    [{ WEFT_MAX_TIMEOUT: "-5m" }, "WEFT_MAX_TIMEOUT", /WEFT_MAX_TIMEOUT="-5m" is not a duration/],
    [{ WEFT_MAX_TIMEOUT: "999h" }, "WEFT_MAX_TIMEOUT", /is not a duration from 1s to 7 days/],
    [{ WEFT_WORKSPACE_SHARE: "0" }, "WEFT_WORKSPACE_SHARE", /is not a fraction above 0 and at most 1/],
    [{ WEFT_WORKSPACE_SHARE: "1.5" }, "WEFT_WORKSPACE_SHARE", /is not a fraction above 0 and at most 1/],
    [{ WEFT_WORKSPACE_SHARE: "half" }, "WEFT_WORKSPACE_SHARE", /is not a fraction/],
  ])("refuses %o", (env, variable, message) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });
});

describe("parseConfig: the bound on the queue's delay", () => {
  it("defaults to 5 seconds and reads a whole number of seconds", () => {
    expect(parseConfig({}, "/srv/weft").maxQueueDelaySeconds).toBe(5);
    expect(parseConfig({ WEFT_MAX_QUEUE_DELAY: "30" }, "/srv/weft").maxQueueDelaySeconds).toBe(30);
  });

  it.each([
    [{ WEFT_MAX_QUEUE_DELAY: "0" }, /WEFT_MAX_QUEUE_DELAY="0" is not an integer from 1 to 3600/],
    [{ WEFT_MAX_QUEUE_DELAY: "5s" }, /is not an integer from 1 to 3600: expected for example WEFT_MAX_QUEUE_DELAY=5/],
    [{ WEFT_MAX_QUEUE_DELAY: "2.5" }, /is not an integer from 1 to 3600/],
    [{ WEFT_MAX_QUEUE_DELAY: "3601" }, /is not an integer from 1 to 3600/],
  ])("refuses %o", (env, message) => {
    const error = configError(env);
    expect(error.variable).toBe("WEFT_MAX_QUEUE_DELAY");
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });
});

describe("loadConfig: the keys of the data dir", () => {
  it("generates the secret key and the dev mailbox's key once into the data dir, then loads them", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-keys-"));
    const first = loadConfig({ WEFT_DATA_DIR: dataDir });
    expect(first.secretKey).toHaveLength(32);
    expect(readFileSync(join(dataDir, "secret.key"), "utf8").trim()).toBe(first.secretKey.toString("hex"));
    expect(first.mail).toEqual({ kind: "outbox", key: readFileSync(join(dataDir, "dev-mailbox.key"), "utf8").trim() });
    const again = loadConfig({ WEFT_DATA_DIR: dataDir });
    expect(again.secretKey.equals(first.secretKey)).toBe(true);
    expect(again.mail).toEqual(first.mail);
  });

  it("takes WEFT_SECRET_KEY over the data dir, and loads no mailbox key when mail goes over SMTP", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-keys-"));
    const key = "cd".repeat(32);
    const config = loadConfig({ WEFT_DATA_DIR: dataDir, WEFT_SECRET_KEY: key, SMTP_URL: "smtp://mail:25" });
    expect(config.secretKey.toString("hex")).toBe(key);
    expect(config.mail).toEqual({ kind: "smtp", url: "smtp://mail:25" });
  });

  it("refuses a secret key file that does not hold a key, naming WEFT_SECRET_KEY", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-keys-"));
    writeFileSync(join(dataDir, "secret.key"), "not a key\n");
    let error: unknown;
    try {
      loadConfig({ WEFT_DATA_DIR: dataDir });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe("WEFT_SECRET_KEY");
    expect((error as ConfigError).message).toMatch(
      /does not hold a 32-byte hex key: delete it .*or set WEFT_SECRET_KEY/,
    );
  });
});
