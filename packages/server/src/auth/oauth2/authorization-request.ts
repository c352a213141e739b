import { allScopes, hasControlCharacter, isScope, type Scope } from "@weft/contract";
import type { Database } from "../../db/database.ts";
import type { OAuthClient } from "./client-metadata.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { findClient } from "./clients.ts";
import { isPkceValue } from "./pkce.ts";
import { redirectUriIsRegistered } from "./redirect-uri.ts";

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: Scope[];
}

/** RFC 6749 §4.1.2.1 error codes of the authorization endpoint, plus RFC 8707's `invalid_target`. */
export type AuthorizeErrorCode =
  | "invalid_request"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "invalid_target";

export type ParsedAuthorizationRequest =
  | { kind: "valid"; request: AuthorizationRequest }
  /** The client or its redirect URI cannot be trusted: the person is told, nobody is redirected. */
  | { kind: "unsafe"; message: string }
  | { kind: "refused"; redirectUri: string; state: string | undefined; error: AuthorizeErrorCode; description: string };

/**
 * Checks an authorization request (`GET` query, or the same query on the page's `POST`s). Until
 * the client and redirect URI check out, nothing is redirected (RFC 6749 §4.1.2.1); after, every
 * refusal goes back to the client with `state`. A control character in any parameter (no OAuth
 * parameter holds one, and NUL cannot be stored) is refused before anything is looked up.
 */
export async function parseAuthorizationRequest(
  db: Database,
  documents: ClientMetadataDocuments,
  query: URLSearchParams,
  resourceBase: string,
): Promise<ParsedAuthorizationRequest> {
  const single = (name: string): string | undefined | null => {
    const values = query.getAll(name);
    if (values.length > 1) return null;
    return values[0] === "" ? undefined : values[0];
  };
  if ([...query].some(([name, value]) => hasControlCharacter(name) || hasControlCharacter(value))) {
    return { kind: "unsafe", message: "A parameter of the request holds a control character." };
  }
  const clientId = single("client_id");
  if (clientId === null || clientId === undefined)
    return { kind: "unsafe", message: "The request names no client_id." };
  const client = await findClient(db, documents, clientId);
  if (client === undefined) return { kind: "unsafe", message: "The application is not registered with Weft." };
  // Always required, so the token request can always be held to the same URI.
  const redirectUri = single("redirect_uri");
  if (redirectUri === null || redirectUri === undefined || !redirectUriIsRegistered(client.redirectUris, redirectUri)) {
    return { kind: "unsafe", message: "The redirect_uri is not one the application registered." };
  }
  const state = single("state");
  const refused = (error: AuthorizeErrorCode, description: string): ParsedAuthorizationRequest => ({
    kind: "refused",
    redirectUri,
    state: state ?? undefined,
    error,
    description,
  });
  const names = ["state", "response_type", "code_challenge", "code_challenge_method", "scope", "resource"];
  const repeated = names.find((name) => single(name) === null);
  if (repeated !== undefined) return refused("invalid_request", `${repeated} is given more than once.`);
  if (single("response_type") !== "code") return refused("unsupported_response_type", 'response_type must be "code".');
  const codeChallenge = single("code_challenge");
  if (typeof codeChallenge !== "string" || !isPkceValue(codeChallenge)) {
    return refused("invalid_request", "code_challenge is required (PKCE, RFC 7636).");
  }
  if (single("code_challenge_method") !== "S256") {
    return refused("invalid_request", 'code_challenge_method must be "S256".');
  }
  const resource = single("resource");
  if (typeof resource === "string" && resource !== resourceBase && !resource.startsWith(`${resourceBase}/`)) {
    return refused("invalid_target", `resource must be Weft's API, ${resourceBase}.`);
  }
  const scopeText = single("scope");
  const requested = typeof scopeText === "string" ? [...new Set(scopeText.split(" ").filter((s) => s !== ""))] : [];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) return refused("invalid_scope", `Unknown scope: ${unknown.join(" ")}.`);
  const scopes = requested.length === 0 ? [...allScopes] : (requested as Scope[]);
  return { kind: "valid", request: { client, redirectUri, state: state ?? undefined, codeChallenge, scopes } };
}

/** The client's redirect URI with the response parameters added to its own query. */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url.href;
}
