import { isRpcError, RegistrationError } from "@weft/client";
import { type QuotaRefusal, quotaRefusalSchema } from "@weft/contract";
import { CliError } from "./errors.ts";

/** What to do about an API refusal, by its RPC code. */
const rpcFixes: Record<string, string> = {
  UNAUTHORIZED: "run `weft login` (your credential is missing, expired or revoked)",
  FORBIDDEN: "ask an owner or admin of the workspace for access, or log in as an account that has it",
  NOT_FOUND: "check the id (the matching `list` command shows what exists)",
  BAD_REQUEST: "fix the input named above and try again",
  CONFLICT:
    "check the current state (the matching `get` or `list` command shows it), then choose another name or retry",
  TOO_MANY_REQUESTS: "wait a little and try again",
  INTERNAL_SERVER_ERROR: "try again; if it keeps failing, check the platform's log",
  SERVICE_UNAVAILABLE: "wait a little and try again",
};

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    current = current.cause;
  }
  return undefined;
}

function issuesOf(data: unknown): string[] {
  const issues = (data as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue.path) ? issue.path.join(".") : String(issue.path ?? "");
    return `  ${path === "" ? "" : `${path}: `}${String(issue.message)}`;
  });
}

function describeRegistrationError(error: RegistrationError): CliError {
  const { code } = error;
  if (code === "discovery_failed") {
    return new CliError(`could not find the authorization server: ${error.message}`, {
      code,
      fix: "check that --api-url (or WEFT_API_URL) points at a running Weft platform",
    });
  }
  if (code === "rate_limited") {
    const wait = error.retryAfterSeconds === undefined ? "a little" : `${error.retryAfterSeconds} seconds`;
    return new CliError(`the authorization server refused: too many requests (${error.message})`, {
      code,
      fix: `wait ${wait} and try again`,
    });
  }
  return new CliError(`the authorization server refused: ${error.message} (${code})`, {
    code,
    fix: code === "server_error" ? "try again in a moment" : "check the input and run the command again",
  });
}

/**
 * The fix for a quota refusal: a monthly quota resets at a date, which waiting a little does not
 * reach; a count (projects, workspaces) goes down only when something is deleted. Either way the
 * operator can move the workspace to another plan.
 */
function quotaFix(quota: QuotaRefusal): string {
  const raise = "or the operator moves the workspace to a larger plan with `weft server set-plan <workspace> <plan>`";
  if (quota.resetsAt !== null) {
    return `wait until the quota resets on ${quota.resetsAt.slice(0, 10)} at ${quota.resetsAt.slice(11, 16)} UTC, ${raise}`;
  }
  return `delete ${quota.name === "projects" ? "a project" : "what"} you no longer need, ${raise}`;
}

/**
 * The fix for an RPC refusal: a credential from `WEFT_TOKEN` is not replaced by `weft login`; a
 * refusal that says when to retry (a backlogged queue, the database unreachable) is told in seconds.
 */
function rpcFix(code: string, data: unknown, env: NodeJS.ProcessEnv): string {
  const given = data as { quota?: unknown; retryAfterSeconds?: unknown } | undefined;
  const quota = quotaRefusalSchema.safeParse(given?.quota);
  if (quota.success) return quotaFix(quota.data);
  if (typeof given?.retryAfterSeconds === "number") return `wait ${given.retryAfterSeconds} seconds and try again`;
  if (code === "UNAUTHORIZED" && (env.WEFT_TOKEN?.trim() ?? "") !== "") {
    return "WEFT_TOKEN holds a credential the platform refuses (missing, expired or revoked): set it to a valid one, or unset it and run `weft login`";
  }
  return rpcFixes[code] ?? "check the input and try again";
}

/** Turns anything a command threw into a CliError that says what happened and what to do. */
export function describeFailure(
  error: unknown,
  context: { apiUrl: string | undefined; env?: NodeJS.ProcessEnv },
): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof RegistrationError) return describeRegistrationError(error);
  if (isRpcError(error)) {
    const message = [error.message, ...issuesOf(error.data)].join("\n");
    return new CliError(message, {
      code: error.code.toLowerCase(),
      fix: rpcFix(error.code, error.data, context.env ?? {}),
    });
  }
  // fetch() rejects with TypeError("fetch failed") and the reason (ECONNREFUSED, ENOTFOUND...) as cause.
  if (error instanceof TypeError && error.message === "fetch failed") {
    const reason = networkCode(error) ?? (error.cause instanceof Error ? error.cause.message : "no answer");
    return new CliError(`could not reach Weft at ${context.apiUrl ?? "the API address"} (${reason})`, {
      code: "unreachable",
      fix: "start the platform with `weft server`, or point the CLI at it with --api-url (or WEFT_API_URL)",
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(message, {
    code: "internal",
    fix: "this is unexpected; please report it with the command you ran",
  });
}
