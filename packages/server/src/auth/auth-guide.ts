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
listed and you can obtain one; otherwise use the person's email address.

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
approve and see a 6-digit code, valid 10 minutes. Ask them for the code, then claim once:

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
\`access.createFederationPolicy\` (issuer, audience, and a subject or claims to match). A job that
holds a token of that provider then exchanges it (RFC 8693) for a short-lived credential that
reaches that project only:

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

## Errors

Errors are JSON \`{"error": "<code>", "error_description": "<text>"}\`, status 400, except
\`rate_limited\` (429, honour \`Retry-After\`) and \`server_error\` (500, retry with backoff).
`;
}
