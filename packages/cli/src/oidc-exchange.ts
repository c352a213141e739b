import { readFileSync } from "node:fs";
import { type ExchangedToken, exchangeToken } from "@weft/client";
import { discoverAuth } from "./auth.ts";
import type { CommandContext } from "./context.ts";
import { type CliError, UsageError } from "./errors.ts";
import { stdinLines } from "./input.ts";

/** `--oidc-token`: the JWT itself, `@file` to read it from a file, or `-` for standard input. */
export async function readOidcToken(context: CommandContext, value: string): Promise<string> {
  let token: string | undefined;
  if (value === "-") token = await stdinLines(context.output.streams.stdin)();
  else if (value.startsWith("@")) {
    try {
      token = readFileSync(value.slice(1), "utf8");
    } catch (error) {
      throw new UsageError(`cannot read the OIDC token from ${value.slice(1)}: ${(error as Error).message}`);
    }
  } else token = value;
  const trimmed = token?.trim() ?? "";
  if (trimmed === "") {
    throw new UsageError("the OIDC token is empty", {
      fix: "pass the identity provider's JWT: --oidc-token <jwt>, --oidc-token @file or --oidc-token - (standard input)",
    });
  }
  return trimmed;
}

/**
 * Exchanges an identity provider's JWT for a credential of one project (RFC 8693 at the platform's
 * token endpoint), as a CI job does instead of holding a stored key.
 */
export async function exchangeOidcToken(
  context: CommandContext,
  input: { token: string; projectId: string },
): Promise<ExchangedToken> {
  const endpoints = await discoverAuth(context.apiUrl);
  return exchangeToken(endpoints, { subjectToken: input.token, audience: input.projectId });
}

/** The project a CI deployment with `WEFT_OIDC_TOKEN` targets must be known before any API call. */
export function oidcProjectRequired(): CliError {
  return new UsageError("with WEFT_OIDC_TOKEN, weft deploy needs the project to exchange the token for", {
    fix: "pass --project <id>, or pin the project in weft.config.ts",
  });
}
