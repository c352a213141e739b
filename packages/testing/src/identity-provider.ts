import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

export interface TestIdentityProvider {
  issuer: string;
  jwksUri: string;
  clientId: string;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** How many times the OpenID configuration (`/.well-known/openid-configuration`) was fetched. */
  discoveryFetches(): number;
  /** Adds a new signing key (published in the JWKS) and makes it the one `sign` uses. */
  rotateKey(): Promise<void>;
  /** Signs a JWT with the current key; `header` overrides typ/alg/kid. */
  sign(payload: JWTPayload, header?: { typ?: string; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

/**
 * A local identity provider: generated ES256 keys served as a JWKS over HTTP at `/jwks`, and an
 * OpenID configuration naming it at `/.well-known/openid-configuration`, as an OIDC issuer serves them.
 */
export async function startTestIdentityProvider(
  options: { cacheControl?: string } = {},
): Promise<TestIdentityProvider> {
  const publicKeys: JWK[] = [];
  let current: { kid: string; privateKey: PrivateKey } | undefined;
  let fetches = 0;
  let configurationFetches = 0;
  const rotateKey = async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const kid = `key-${publicKeys.length + 1}`;
    publicKeys.push({ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" });
    current = { kid, privateKey };
  };
  await rotateKey();
  let issuer = "";
  const server: Server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    if (options.cacheControl !== undefined) response.setHeader("cache-control", options.cacheControl);
    if (request.url === "/.well-known/openid-configuration") {
      configurationFetches += 1;
      response.end(
        JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ["ES256"] }),
      );
      return;
    }
    fetches += 1;
    response.end(JSON.stringify({ keys: publicKeys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    clientId: "agent-client-1",
    jwksFetches: () => fetches,
    discoveryFetches: () => configurationFetches,
    rotateKey,
    sign: (payload, header = {}) => {
      if (current === undefined) throw new Error("no key");
      return new SignJWT(payload)
        .setProtectedHeader({ alg: "ES256", typ: header.typ ?? "oauth-id-jag+jwt", kid: header.kid ?? current.kid })
        .sign(current.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function trustedIssuersEnv(...providers: TestIdentityProvider[]): string {
  return JSON.stringify(
    providers.map((provider) => ({
      issuer: provider.issuer,
      jwks_uri: provider.jwksUri,
      client_ids: [provider.clientId],
    })),
  );
}

/**
 * The claims of an ID-JAG that `idp` issues to `audience` for `subject`, issued at `issuedAt` and
 * valid five minutes, its email (when given) verified; `overrides` replace or add claims.
 */
export function idJagClaimsFor(
  idp: TestIdentityProvider,
  audience: string,
  issuedAt: Date,
  subject: { sub: string; email?: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Math.floor(issuedAt.getTime() / 1000);
  return {
    iss: idp.issuer,
    sub: subject.sub,
    aud: audience,
    client_id: idp.clientId,
    jti: randomUUID(),
    iat: now,
    exp: now + 300,
    ...(subject.email === undefined ? {} : { email: subject.email }),
    email_verified: true,
    ...overrides,
  };
}
