import type { JsonResponse } from "./auth-client.ts";

export const tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange";
export const jwtTokenType = "urn:ietf:params:oauth:token-type:jwt";

/**
 * `POST {auth_url}/oauth2/token` with a form body, as a CI job sends it: by default an RFC 8693
 * exchange of `subjectToken` for a credential of `audience`; `fields` adds or overrides parameters.
 */
export async function postTokenRequest(
  authUrl: string,
  input: { subjectToken?: string; audience?: string; fields?: Record<string, string> },
): Promise<JsonResponse> {
  const fields: Record<string, string> = {
    grant_type: tokenExchangeGrantType,
    subject_token_type: jwtTokenType,
    ...(input.subjectToken === undefined ? {} : { subject_token: input.subjectToken }),
    ...(input.audience === undefined ? {} : { audience: input.audience }),
    ...input.fields,
  };
  const response = await fetch(`${authUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}
