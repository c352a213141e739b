import { agentAuthEndpoints, type DiscoveryConfig, supportedAssertionTypes } from "./discovery.ts";
import { idJagAssertionType } from "./verify-id-jag.ts";
import { logoutTokenMaxAgeSeconds, revocationEventUri } from "./verify-logout-token.ts";
import { maxIssuedAtSkewSeconds } from "./verify-signed-jwt.ts";

function idJagSection(config: DiscoveryConfig, registerUri: string): string {
  if (!supportedAssertionTypes(config).includes(idJagAssertionType)) {
    return "ID-JAG registration is not enabled on this instance (no identity provider is trusted). Use the email flow.\n";
  }
  const issuers = config.trustedIssuers.map((issuer) => `- \`${issuer.issuer}\``).join("\n");
  return `Trusted issuers:

${issuers}

Ask your identity provider for an ID-JAG (typ \`oauth-id-jag+jwt\`) with \`aud\` = \`${config.authUrl}\`,
your \`client_id\`, a unique \`jti\`, and the user's \`email\` with \`email_verified: true\`. Then:

\`\`\`sh
curl -s -X POST ${registerUri} -H 'content-type: application/json' -d '{
  "type": "identity_assertion",
  "assertion_type": "${idJagAssertionType}",
  "assertion": "<the ID-JAG>",
  "requested_credential_type": "api_key"
}'
\`\`\`

The answer (201) carries \`credential\` at once. Each ID-JAG works once.
`;
}

/** `/auth.md`: how an agent registers with this very instance, with its real addresses. */
export function authGuide(config: DiscoveryConfig): string {
  const endpoints = agentAuthEndpoints(config.authUrl);
  return `# Registering an AI agent with Weft

This Weft instance lets an AI agent act for a person with a bearer credential.

- Authorization server: ${config.authUrl}
- Metadata: ${config.authUrl}/.well-known/oauth-authorization-server
- API: ${config.baseUrl}/rpc (send \`Authorization: Bearer <credential>\`)
- Assertion types accepted here: ${supportedAssertionTypes(config).join(", ")}

Pick the method from \`identity_assertion_types_supported\` in the metadata: use ID-JAG when it is
listed and you can obtain one; otherwise use the person's email address. The metadata's
\`agent_auth\` block names every registration endpoint used below: \`register_uri\` (${endpoints.register}),
\`claim_uri\` (${endpoints.claim}) and \`revocation_uri\` (${endpoints.revoke}).

## 1. ID-JAG: credential at once

${idJagSection(config, endpoints.register)}
## 2. Verified email: the person approves

\`\`\`sh
curl -s -X POST ${endpoints.register} -H 'content-type: application/json' -d '{
  "type": "identity_assertion",
  "assertion_type": "verified_email",
  "assertion": "person@example.com",
  "requested_credential_type": "api_key"
}'
\`\`\`

The answer (201) carries \`claim_token\` (keep it secret), \`claim_token_expires\` (30 minutes) and
\`post_claim_scopes\`, but no credential. The person receives a mail with a link; on that page they
approve and see a 6-digit code, valid 10 minutes. Ask them for the code, then claim once at
\`claim_uri\`:

\`\`\`sh
curl -s -X POST ${endpoints.claim} -H 'content-type: application/json' \\
  -d '{"claim_token": "clm_…", "otp": "123456"}'
\`\`\`

The answer carries \`credential\`, \`credential_expires\` (30 days) and \`scopes\`. A wrong code may
be retried; after 5 attempts the code is spent and the person must register the agent again.

## 3. Using and checking the credential

\`\`\`sh
curl -s ${config.authUrl}/agent/auth/credential -H 'authorization: Bearer weft_…'
\`\`\`

## 4. Revoking

An agent credential of sections 1 and 2 is revoked at \`revocation_uri\` (tokens of the OAuth flow
of section 6 have their own endpoint, \`revocation_endpoint\`):

\`\`\`sh
curl -s -X POST ${endpoints.revoke} -H 'content-type: application/json' -d '{"credential": "weft_…"}'
\`\`\`

Identity providers revoke every credential of a delegation by posting a logout token
(\`content-type: application/logout+jwt\`) to the same address: a JWT with header \`typ\`
\`logout+jwt\`, signed by a trusted issuer, carrying \`iss\`, \`sub\`, \`aud\` = \`${config.authUrl}\`,
\`iat\`, a unique \`jti\` and \`events\` with \`${revocationEventUri(config.eventSchemaHost)}\`, and no
\`nonce\`. With an \`exp\`, it is accepted until then. Without one, it is accepted for
${logoutTokenMaxAgeSeconds / 60} minutes after its \`iat\` (which may be at most ${maxIssuedAtSkewSeconds} s ahead of this server's clock).
Each logout token works once.

## 5. CI and applications: a project-scoped credential from an OIDC token

A workspace owner or admin trusts an identity provider for one project with
\`access.createFederationPolicy\` (issuer, audience, and a subject or claims to match, which must
pin the owner: on GitHub Actions \`repository_owner\`, on GitLab CI \`namespace_path\`). A job that
holds a token of that provider (with a \`jti\`, expiring within 24 hours) then exchanges it (RFC 8693)
for a short-lived credential that reaches that project only:

\`\`\`sh
curl -s -X POST ${endpoints.token} \\
  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\
  -d subject_token_type=urn:ietf:params:oauth:token-type:jwt \\
  --data-urlencode subject_token="$OIDC_TOKEN" \\
  -d audience=prj_…
\`\`\`

The answer carries \`access_token\` (a Weft credential), \`expires_in\` and \`scope\`. Its errors
follow RFC 6749 §5.2: \`invalid_request\` (a malformed request, or a token that fails verification or
matches no policy), \`invalid_target\`, \`invalid_scope\`, \`unsupported_grant_type\`.

## 6. MCP clients and other OAuth 2.1 clients: the authorization code flow

A client that completes OAuth on its own (the MCP SDKs, Claude, Cursor, VS Code) needs only the
URL: it finds this server through the protected resource metadata and the metadata above.

1. Register once (RFC 7591, public client, no secret):

\`\`\`sh
curl -s -X POST ${endpoints.registerClient} -H 'content-type: application/json' \\
  -d '{"client_name": "My client", "redirect_uris": ["http://127.0.0.1/callback"]}'
\`\`\`

   The answer (201) carries \`client_id\`. Redirect URIs are https, http on a loopback address
   (any port is accepted later, RFC 8252 §7.3), or an app's private-use scheme. Or skip this step:
   use as \`client_id\` the https URL of your client ID metadata document (\`client_id\` equal to
   that URL, \`client_name\`, \`redirect_uris\`, \`token_endpoint_auth_method: "none"\`), on a public
   address, at most 5 KiB.
2. Send the person's browser to
   \`${endpoints.authorize}?response_type=code&client_id=…&redirect_uri=…&code_challenge=…&code_challenge_method=S256&state=…&scope=…\`.
   PKCE S256 is required. The person signs in with their email: the mail names your client, its
   redirect host, and the address and browser that asked. Approved in the browser that opened this
   page, the link leads back to it; approved anywhere else (a phone), it shows a 6-digit code the
   person types on this page. Then they see your client's name, redirect host and scopes and allow
   or deny. You get \`code\` and your \`state\` back, or \`error\` (RFC 6749 §4.1.2.1).
3. Exchange the code within 60 seconds, once:

\`\`\`sh
curl -s -X POST ${endpoints.token} -d grant_type=authorization_code -d client_id=cli_… \\
  -d code=woc_… -d redirect_uri=… -d code_verifier=…
\`\`\`

   The answer carries \`access_token\` (a Weft credential, 1 hour), \`refresh_token\` and \`scope\`.
4. Refresh with \`grant_type=refresh_token\`, \`client_id\` and \`refresh_token\`: every use
   returns a new refresh token and retires the old one and the old access token. Presenting a
   retired refresh token (or a redeemed code) revokes everything the grant issued.
5. Sign out by revoking either token (RFC 7009) at \`revocation_endpoint\`; this ends the grant, its
   access and refresh tokens alike:

\`\`\`sh
curl -s -X POST ${endpoints.revokeToken} -d token=wrt_… -d token_type_hint=refresh_token -d client_id=cli_…
\`\`\`

   The answer is 200 with an empty body, also for a token that is unknown, already revoked or
   another client's (which stays valid). \`token_type_hint\` is optional.

Errors: \`invalid_client\` (unknown or missing client_id), \`invalid_grant\` (a code or refresh
token that is unknown, expired, another client's, already used or of a revoked grant, a different
redirect_uri, or a missing or wrong code_verifier: RFC 7636 §4.6), \`invalid_request\` (a missing
parameter, a body that is not a form, or a malformed code_verifier: not 43 to 128 characters of
\`A-Z a-z 0-9 - . _ ~\`), \`invalid_scope\`, and at the revocation endpoint \`unsupported_token_type\`
(a \`token_type_hint\` other than \`access_token\` or \`refresh_token\` for a token it does not know).

## Errors

Errors are JSON \`{"error": "<code>", "error_description": "<text>"}\`, status 400, except
\`rate_limited\` (429, honour \`Retry-After\`) and \`server_error\` (500, retry with backoff).
`;
}
