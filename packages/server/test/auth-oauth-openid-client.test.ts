import { allowAuthorization, callRpc, emailSequence, mailingTestPlatform, registerSecret } from "@weft/testing";
import * as oauth from "openid-client";
import { describe, expect, it } from "vitest";

const platform = mailingTestPlatform();
const redirectUri = "http://127.0.0.1:8765/callback";
const nextEmail = emailSequence("openid");

/**
 * openid-client as an application uses it: it discovers the server from its URL (RFC 8414) and
 * registers a public client there (RFC 7591). The test server speaks plain http on loopback.
 */
function registerClient(): Promise<oauth.Configuration> {
  return oauth.dynamicClientRegistration(
    new URL(platform.weft.url),
    { client_name: "openid-client", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" },
    oauth.None(),
    { algorithm: "oauth2", execute: [oauth.allowInsecureRequests] },
  );
}

/** An authorization request built by openid-client, allowed by a new person: the callback URL and its checks. */
async function authorize(config: oauth.Configuration) {
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();
  const url = oauth.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "projects:read",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });
  const callback = await allowAuthorization(url.href, nextEmail(), platform.smtp);
  return { callback, checks: { pkceCodeVerifier: verifier, expectedState: state } };
}

/** Discovery, registration, authorization code with PKCE and the token request, all by openid-client. */
async function signIn(): Promise<{ config: oauth.Configuration; accessToken: string; refreshToken: string }> {
  const config = await registerClient();
  const { callback, checks } = await authorize(config);
  const tokens = await oauth.authorizationCodeGrant(config, callback, checks);
  registerSecret(tokens.access_token);
  registerSecret(tokens.refresh_token as string);
  expect(tokens).toMatchObject({ token_type: "bearer", scope: "projects:read" });
  return { config, accessToken: tokens.access_token, refreshToken: tokens.refresh_token as string };
}

const rpcStatus = async (token: string) => (await callRpc(platform.weft.url, "projects.list", {}, { token })).status;

/** What openid-client throws for an OAuth error answer: its `error` code. */
async function oauthErrorOf(attempt: Promise<unknown>): Promise<string> {
  const failure = await attempt.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(oauth.ResponseBodyError);
  return (failure as oauth.ResponseBodyError).error;
}

describe("openid-client against the authorization server", () => {
  it("discovers the endpoints, the revocation endpoint among them", async () => {
    const config = await registerClient();
    expect(config.serverMetadata()).toMatchObject({
      issuer: platform.weft.url,
      token_endpoint: `${platform.weft.url}/oauth2/token`,
      revocation_endpoint: `${platform.weft.url}/oauth2/revoke`,
      code_challenge_methods_supported: ["S256"],
    });
    expect(config.clientMetadata().client_id).toMatch(/^cli_/);
  });

  it("revokes the access token with tokenRevocation: /rpc answers 401, the refresh grant invalid_grant", async () => {
    const { config, accessToken, refreshToken } = await signIn();
    expect(await rpcStatus(accessToken)).toBe(200);
    await oauth.tokenRevocation(config, accessToken, { token_type_hint: "access_token" });
    expect(await rpcStatus(accessToken)).toBe(401);
    expect(await oauthErrorOf(oauth.refreshTokenGrant(config, refreshToken))).toBe("invalid_grant");
  });

  it("revokes the refresh token with tokenRevocation: the refresh grant answers invalid_grant, /rpc 401", async () => {
    const { config, accessToken, refreshToken } = await signIn();
    await oauth.tokenRevocation(config, refreshToken, { token_type_hint: "refresh_token" });
    expect(await oauthErrorOf(oauth.refreshTokenGrant(config, refreshToken))).toBe("invalid_grant");
    expect(await rpcStatus(accessToken)).toBe(401);
  });

  it("refreshes with refreshTokenGrant until the token is revoked", async () => {
    const { config, refreshToken } = await signIn();
    const refreshed = await oauth.refreshTokenGrant(config, refreshToken);
    registerSecret(refreshed.access_token);
    registerSecret(refreshed.refresh_token as string);
    expect(await rpcStatus(refreshed.access_token)).toBe(200);
    await oauth.tokenRevocation(config, refreshed.refresh_token as string);
    expect(await rpcStatus(refreshed.access_token)).toBe(401);
  });

  it("surfaces invalid_grant for a wrong code_verifier (RFC 7636 §4.6)", async () => {
    const config = await registerClient();
    const { callback, checks } = await authorize(config);
    const wrong = { ...checks, pkceCodeVerifier: oauth.randomPKCECodeVerifier() };
    expect(await oauthErrorOf(oauth.authorizationCodeGrant(config, callback, wrong))).toBe("invalid_grant");
  });
});
