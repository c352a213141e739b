import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { isAbsolute, resolve } from "node:path";
import { type Duration, durationToMs, type Plan, planNameSchema, planSchema } from "@weft/contract";
import { z } from "zod";
import type { EgressAllowEntry } from "../engine/egress/address-policy.ts";

/** What a variable's schema needs to phrase its refusal and find files. */
export interface VariableContext {
  name: string;
  /** A good value, named in refusals as the form to copy. */
  example: string;
  /** Relative paths (WEFT_DATA_DIR, a WEFT_TRUSTED_ISSUERS file) are resolved against it. */
  cwd: string;
}

/**
 * Turns a variable's trimmed text into its setting. A refusal is one issue whose message is the
 * whole one-line error: variable, problem, expected form.
 */
export type VariableSchema<T> = (variable: VariableContext) => z.ZodType<T, string>;

type Refuse = (message: string) => never;

/** A schema from a conversion that calls `refuse` with the one-line message when the text cannot be used. */
function textSchema<T>(convert: (raw: string, refuse: Refuse) => T): z.ZodType<T, string> {
  return z.string().transform((raw, ctx) => {
    try {
      return convert(raw, (message) => {
        throw new Refusal(message);
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      ctx.addIssue({ code: "custom", message: error.message, input: raw });
      return z.NEVER;
    }
  });
}

/** Thrown by `refuse` so a conversion stops at its first problem, even inside a list's `map`. */
class Refusal extends Error {}

const quoted = (raw: string) => JSON.stringify(raw);

export const text: VariableSchema<string> = () => z.string();

/** A directory, absolute or relative to the working directory. */
export const path: VariableSchema<string> = ({ cwd }) => z.string().transform((raw) => resolve(cwd, raw));

export const portNumber: VariableSchema<number> = ({ name, example }) =>
  textSchema((raw, refuse) => {
    if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
      refuse(
        `${name}=${quoted(raw)} is not a port number: expected an integer from 0 to 65535, for example ${name}=${example}`,
      );
    }
    return Number(raw);
  });

/** An absolute http(s) URL without credentials, query or fragment, with no trailing slash. */
export const publicUrl: VariableSchema<string> = ({ name, example }) =>
  textSchema((raw, refuse) => {
    const form = `expected an http(s) URL such as ${example}`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse(`${name}=${quoted(raw)} is not an absolute URL: ${form}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      refuse(`${name}=${quoted(raw)} uses ${url.protocol.replace(":", "")}, not http or https: ${form}`);
    }
    if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
      refuse(`${name}=${quoted(raw)} must not carry credentials, a query or a fragment: ${form}`);
    }
    return url.href.replace(/\/+$/, "");
  });

/**
 * A URL with one of `schemes`. It carries a password, so a refusal never repeats the value.
 * `form` names the expected form, e.g. "a PostgreSQL URL like postgres://…".
 */
function secretUrl(schemes: readonly string[], form: string, check?: (url: URL) => string | undefined) {
  return ({ name }: VariableContext) =>
    textSchema((raw, refuse) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return refuse(`${name} is not a URL: expected ${form}`);
      }
      const scheme = url.protocol.replace(":", "");
      if (!schemes.includes(scheme)) refuse(`${name} uses the unsupported scheme "${scheme}": expected ${form}`);
      const problem = check?.(url);
      if (problem !== undefined) refuse(`${name} ${problem}: expected ${form}`);
      return raw;
    });
}

export const postgresUrl: VariableSchema<string> = secretUrl(
  ["postgres", "postgresql"],
  "a PostgreSQL URL like postgres://user:password@host:5432/database",
  (url) => (url.hostname === "" && !url.searchParams.has("host") ? "names no host" : undefined),
);

export const smtpUrl: VariableSchema<string> = secretUrl(
  ["smtp", "smtps"],
  "smtp://user:password@host:587 or smtps://…",
);

/** One of `choices`; `what` names the kind of value in the refusal ("a mode", "a log level"). */
export function choice<const T extends string>(choices: readonly T[], what?: string): VariableSchema<T> {
  return ({ name }) =>
    z.string().pipe(
      z.enum(choices, {
        error: (issue) =>
          what === undefined
            ? `${name}=${quoted(String(issue.input))} is not valid: expected one of ${choices.join(", ")}`
            : `${name}=${quoted(String(issue.input))} is not ${what}: expected ${listed(choices)}`,
      }),
    );
}

function listed(choices: readonly string[]): string {
  return choices.length <= 3
    ? `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`
    : `one of ${choices.join(", ")}`;
}

export function integerBetween(min: number, max: number): VariableSchema<number> {
  return ({ name, example }) =>
    textSchema((raw, refuse) => {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) {
        refuse(
          `${name}=${quoted(raw)} is not an integer from ${min} to ${max}: expected for example ${name}=${example}`,
        );
      }
      return value;
    });
}

/** Requests per minute per client IP. */
export const requestCount: VariableSchema<number> = ({ name, example }) =>
  textSchema((raw, refuse) => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) {
      refuse(
        `${name}=${quoted(raw)} is not a request count: expected a whole number of requests per minute per client IP, from 1 to 100000, for example ${name}=${example}`,
      );
    }
    return Number(raw);
  });

const longestDurationMs = 7 * 24 * 3_600_000;

function durationOrNaN(text: Duration): number {
  try {
    return durationToMs(text);
  } catch {
    return Number.NaN;
  }
}

/** `15m`, `900s`, `2h` or milliseconds, from one second to seven days (the longest a workflow's own timeout may be). */
export const duration: VariableSchema<number> = ({ name }) =>
  textSchema((raw, refuse) => {
    const ms = /^\d+$/.test(raw) ? Number(raw) : durationOrNaN(raw as Duration);
    if (!(ms >= 1000 && ms <= longestDurationMs)) {
      refuse(
        `${name}=${quoted(raw)} is not a duration from 1s to 7 days: expected minutes, seconds or milliseconds like ${name}=15m, 900s or 900000`,
      );
    }
    return ms;
  });

/** A fraction above 0 and at most 1: the share of a worker's slots one workspace may hold. */
export const slotShare: VariableSchema<number> = ({ name, example }) =>
  textSchema((raw, refuse) => {
    const share = Number(raw);
    if (!/^\d*\.?\d+$/.test(raw) || !(share > 0 && share <= 1)) {
      refuse(
        `${name}=${quoted(raw)} is not a fraction above 0 and at most 1: expected the share of a worker's slots one workspace may hold, for example ${name}=${example}`,
      );
    }
    return share;
  });

export const mailAddress: VariableSchema<string> = ({ name }) =>
  textSchema((raw, refuse) => {
    if (!/^[^<>@\s]+@[^<>@\s]+$/.test(raw) && !/^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(raw)) {
      refuse(
        `${name}=${quoted(raw)} is not a mail address: expected "Name <address@example.com>" or "address@example.com"`,
      );
    }
    return raw;
  });

/** 32 bytes as 64 hex or 43 base64 characters. A secret: a refusal never repeats the value. */
export const key32: VariableSchema<Buffer> = ({ name }) =>
  textSchema((raw, refuse) => {
    if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, "hex");
    if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) return Buffer.from(raw, "base64");
    return refuse(
      `${name} is not a 32-byte key: expected 64 hex characters or 43 base64 characters, for example the output of \`openssl rand -hex 32\``,
    );
  });

/** "all", or a comma list of `names`; the set keeps the order given. */
export function nameSet<const T extends string>(names: readonly T[]): VariableSchema<ReadonlySet<T>> {
  return ({ name }) =>
    textSchema((raw, refuse) => {
      if (raw === "all") return new Set(names);
      const given = raw.split(",").map((entry) => entry.trim());
      const unknown = given.filter((entry) => !(names as readonly string[]).includes(entry));
      if (unknown.length > 0) {
        refuse(
          `${name}=${quoted(raw)} names unknown roles (${unknown.join(", ")}): expected "all" or a comma list of ${names.join(", ")}`,
        );
      }
      return new Set(given as T[]);
    });
}

/** A comma list of IP addresses and CIDRs, kept as written. */
export const addressList: VariableSchema<string[]> = ({ name, example }) =>
  textSchema((raw, refuse) =>
    raw.split(",").map((text) => {
      const entry = text.trim();
      const [address, prefix, ...rest] = entry.split("/");
      const family = isIP(address ?? "");
      const prefixOk =
        prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
      if (family === 0 || !prefixOk || rest.length > 0) {
        refuse(
          `${name} names ${quoted(entry)}, which is not an IP address or CIDR: expected a comma list like ${example}`,
        );
      }
      return entry;
    }),
  );

function egressAllowEntry(entry: string): EgressAllowEntry | undefined {
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

export const egressAllowList: VariableSchema<EgressAllowEntry[]> = ({ name, example }) =>
  textSchema((raw, refuse) =>
    raw.split(",").map((text) => {
      const entry = text.trim();
      return (
        egressAllowEntry(entry) ??
        refuse(
          `${name} names ${quoted(entry)}, which is neither a CIDR nor host:port: expected a comma list of CIDRs or host:port entries like ${example}`,
        )
      );
    }),
  );

const issuerList = z
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

export interface TrustedIssuer {
  issuer: string;
  jwksUri: string;
  clientIds: string[];
}

/**
 * The JSON a variable holds inline (starting with `[` or `{`) or in the file it names, parsed; the
 * refusals name the variable and the form expected.
 */
function jsonOrFile(raw: string, refuse: Refuse, context: { name: string; cwd: string; form: string }): unknown {
  const { name, cwd, form } = context;
  let text = raw;
  if (!raw.startsWith("[") && !raw.startsWith("{")) {
    const file = isAbsolute(raw) ? raw : resolve(cwd, raw);
    if (!existsSync(file)) refuse(`${name}=${quoted(raw)} is neither JSON nor the path of an existing file: ${form}`);
    text = readFileSync(file, "utf8");
  }
  try {
    return JSON.parse(text);
  } catch {
    return refuse(`${name} is not valid JSON: ${form}`);
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  return `${issue?.message ?? "invalid"}${where}`;
}

/** A JSON issuer list, or the path of a file holding one. */
export const trustedIssuers: VariableSchema<TrustedIssuer[]> = ({ name, example, cwd }) =>
  textSchema((raw, refuse) => {
    const form = `expected a JSON array like ${example} or the path of a file holding one`;
    const parsed = issuerList.safeParse(jsonOrFile(raw, refuse, { name, cwd, form }));
    if (!parsed.success) return refuse(`${name} is not a valid issuer list (${firstIssue(parsed.error)}): ${form}`);
    return parsed.data.map((entry) => ({ issuer: entry.issuer, jwksUri: entry.jwks_uri, clientIds: entry.client_ids }));
  });

const planList = z
  .union([planSchema, z.array(planSchema).min(1)])
  .transform((plans) => (Array.isArray(plans) ? plans : [plans]))
  .refine((plans) => new Set(plans.map((plan) => plan.name)).size === plans.length, {
    message: "a plan name is listed twice",
  });

/** The operator's plans: a JSON plan or array of plans, inline or in a file. */
export const planCatalogue: VariableSchema<Plan[]> = ({ name, example, cwd }) =>
  textSchema((raw, refuse) => {
    const form = `expected a JSON array like ${example} or the path of a file holding one`;
    const parsed = planList.safeParse(jsonOrFile(raw, refuse, { name, cwd, form }));
    if (!parsed.success) return refuse(`${name} is not a valid plan list (${firstIssue(parsed.error)}): ${form}`);
    return parsed.data;
  });

/** A plan's name (checked against the plans by `parseConfig`). */
export const planName: VariableSchema<string> = ({ name, example }) =>
  textSchema((raw, refuse) => {
    if (!planNameSchema.safeParse(raw).success) refuse(`${name}=${quoted(raw)} is not a plan name, e.g. ${example}`);
    return raw;
  });
