import { type AuthResult, refuse } from "../auth-error.ts";
import { redirectUriProblem } from "./redirect-uri.ts";

const maxRedirectUris = 10;
const maxRedirectUriLength = 2000;
const maxClientNameLength = 200;
export const supportedGrantTypes = ["authorization_code", "refresh_token"] as const;

export interface OAuthClient {
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  createdAt: Date;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

export function checkRedirectUris(value: unknown): AuthResult<string[]> {
  const uris = stringList(value);
  if (uris === undefined || uris.length === 0) {
    return refuse("invalid_redirect_uri", "redirect_uris is required: a non-empty array of URIs.");
  }
  if (uris.length > maxRedirectUris) return refuse("invalid_redirect_uri", `At most ${maxRedirectUris} redirect_uris.`);
  for (const uri of uris) {
    if (uri.length > maxRedirectUriLength) {
      return refuse("invalid_redirect_uri", `A redirect URI is at most ${maxRedirectUriLength} characters.`);
    }
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) return refuse("invalid_redirect_uri", problem);
  }
  return { ok: true, value: [...new Set(uris)] };
}

/** Checks the metadata fields Weft acts on; any other field is ignored (RFC 7591 §2). */
export function checkMetadata(body: Record<string, unknown>): AuthResult<{ clientName: string | null }> {
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    return refuse(
      "invalid_client_metadata",
      'token_endpoint_auth_method must be "none": Weft registers public clients.',
    );
  }
  const grantTypes = body.grant_types === undefined ? [] : stringList(body.grant_types);
  const unsupportedGrant = grantTypes?.find((grant) => !(supportedGrantTypes as readonly string[]).includes(grant));
  if (grantTypes === undefined || unsupportedGrant !== undefined) {
    return refuse("invalid_client_metadata", `grant_types may hold only: ${supportedGrantTypes.join(", ")}.`);
  }
  const responseTypes = body.response_types === undefined ? [] : stringList(body.response_types);
  if (responseTypes === undefined || responseTypes.some((type) => type !== "code")) {
    return refuse("invalid_client_metadata", 'response_types may hold only "code".');
  }
  const name = body.client_name;
  if (name !== undefined && (typeof name !== "string" || name.length > maxClientNameLength)) {
    return refuse(
      "invalid_client_metadata",
      `client_name must be a string of at most ${maxClientNameLength} characters.`,
    );
  }
  const cleaned = typeof name === "string" ? name.replace(/[\p{Cc}]/gu, " ").trim() : "";
  return { ok: true, value: { clientName: cleaned === "" ? null : cleaned } };
}
