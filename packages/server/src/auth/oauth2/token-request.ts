import { hasControlCharacter } from "@weft/contract";
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import { AuthError } from "../auth-error.ts";

/** The parameters of a token request, each present at most once (RFC 6749 §3.2). */
export type TokenParameters = ReadonlyMap<string, string>;

/**
 * Reads an `application/x-www-form-urlencoded` request of the token or revocation endpoint, or
 * refuses it as `invalid_request`; `request` names it in that refusal, with the section that asks
 * for the form. No parameter of OAuth holds a control character (RFC 6749 Appendix A), and NUL
 * cannot be stored.
 */
export async function readTokenParameters(c: Context<AppEnv>, request: string): Promise<TokenParameters> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new AuthError("invalid_request", `Send ${request} as Content-Type: application/x-www-form-urlencoded.`);
  }
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(await c.req.text())) {
    if (hasControlCharacter(name) || hasControlCharacter(value)) {
      const which = hasControlCharacter(name) ? "A parameter name" : name;
      throw new AuthError("invalid_request", `${which} holds a control character.`);
    }
    if (parameters.has(name)) throw new AuthError("invalid_request", `${name} is given more than once.`);
    parameters.set(name, value);
  }
  return parameters;
}

export function requireParameter(parameters: TokenParameters, name: string): string {
  const value = parameters.get(name);
  if (value === undefined || value === "") throw new AuthError("invalid_request", `${name} is required.`);
  return value;
}

/** An optional parameter; an empty one counts as absent (RFC 6749 §3.1). */
export function optionalParameter(parameters: TokenParameters, name: string): string | undefined {
  const value = parameters.get(name);
  return value === undefined || value === "" ? undefined : value;
}
