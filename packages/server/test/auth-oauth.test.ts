import {
  type AuthorizedCode,
  answerConsent,
  authorizedCode,
  callRpc,
  codeRequest,
  csrfTokenOf,
  emailSequence,
  mailingTestPlatform,
  pkcePair,
  postJson,
  redeemCode,
  registerOAuthClient,
  requestToken,
  signInForAuthorization,
  unthrottledSignUpEnv,
} from "@weft/testing";
import { count } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthAuthorizationCodes, registrations } from "../src/db/schema/index.ts";

const platform = mailingTestPlatform({ env: unthrottledSignUpEnv });
const redirectUri = "http://127.0.0.1:8765/callback";

const nextEmail = emailSequence("oauth");

async function newClient(uris: string[] = [redirectUri]): Promise<string> {
  const registered = await registerOAuthClient(platform.weft.url, {
    client_name: "Test MCP Client",
    redirect_uris: uris,
  });
  expect(registered.status).toBe(201);
  return registered.body.client_id as string;
}

async function rowCounts() {
  const [regs] = await platform.weft.database.db.select({ n: count() }).from(registrations);
  const [codes] = await platform.weft.database.db.select({ n: count() }).from(oauthAuthorizationCodes);
  return { registrations: regs?.n, codes: codes?.n };
}

/** A request of `clientId`'s to the usual redirect URI, with a fresh PKCE pair; `parameters` adds or overrides. */
function requestOf(clientId: string, parameters: Record<string, string | undefined> = {}) {
  return codeRequest(platform.weft.url, { client_id: clientId, redirect_uri: redirectUri, ...parameters });
}

/** Registers a client, signs a new person in, consents (a 303 back with the state), and returns the code. */
async function authorize(options: { redirect?: string; scope?: string } = {}): Promise<AuthorizedCode> {
  return authorizedCode(platform.weft.url, platform.smtp, {
    clientId: await newClient(),
    redirectUri: options.redirect ?? redirectUri,
    email: nextEmail(),
    state: "st-123",
    scope: options.scope,
  });
}

const redeem = (authorized: AuthorizedCode, overrides: Record<string, string> = {}) =>
  redeemCode(platform.weft.url, authorized, overrides);

/** The token endpoint's refusal body for what happened to a code or a refresh token. */
const invalidGrant = (description: string | RegExp) => ({ error: "invalid_grant", error_description: description });

describe("authorization server metadata", () => {
  it("lists the OAuth 2.1 endpoints and capabilities MCP clients need", async () => {
    const metadata = (await (
      await fetch(`${platform.weft.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      authorization_endpoint: `${platform.weft.url}/oauth2/authorize`,
      token_endpoint: `${platform.weft.url}/oauth2/token`,
      registration_endpoint: `${platform.weft.url}/oauth2/register`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      token_endpoint_auth_methods_supported: ["none"],
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });
});

describe("dynamic client registration", () => {
  it("registers a public client", async () => {
    const registered = await registerOAuthClient(platform.weft.url, {
      client_name: "Editor",
      redirect_uris: [redirectUri, "https://app.example.com/cb", "com.example.editor:/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      client_id: expect.stringMatching(/^cli_/),
      client_name: "Editor",
      token_endpoint_auth_method: "none",
      response_types: ["code"],
    });
  });

  it.each([
    [{}, "invalid_redirect_uri"],
    [{ redirect_uris: [] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["http://evil.example.com/cb"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["https://app.example.com/cb#frag"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
    [{ redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
    [{ redirect_uris: [redirectUri], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
    [{ redirect_uris: [redirectUri], response_types: ["token"] }, "invalid_client_metadata"],
  ])("refuses %j with %s", async (metadata, error) => {
    const registered = await registerOAuthClient(platform.weft.url, metadata);
    expect(registered.status).toBe(400);
    expect(registered.body.error).toBe(error);
  });
});

describe("authorize page", () => {
  it("shows an error and redirects nowhere for an unknown client or an unregistered redirect URI", async () => {
    const clientId = await newClient();
    for (const parameters of [
      { client_id: "cli_unknown", redirect_uri: redirectUri },
      { client_id: clientId, redirect_uri: "http://127.0.0.1:8765/other" },
      { client_id: clientId, redirect_uri: "https://evil.example.com/callback" },
      { client_id: clientId },
    ]) {
      const response = await fetch(codeRequest(platform.weft.url, { ...parameters, state: "s" }).url, {
        redirect: "manual",
      });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
  });

  it("accepts a loopback redirect URI on any port (RFC 8252 §7.3)", async () => {
    const clientId = await newClient();
    const response = await fetch(requestOf(clientId, { redirect_uri: "http://127.0.0.1:49152/callback" }).url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Test MCP Client");
  });

  it.each([
    [{ code_challenge: undefined }, "invalid_request"],
    [{ code_challenge_method: "plain" }, "invalid_request"],
    [{ code_challenge_method: undefined }, "invalid_request"],
    [{ response_type: "token" }, "unsupported_response_type"],
    [{ scope: "projects:read admin:everything" }, "invalid_scope"],
  ])("redirects %j back with error %s and the state, changing nothing", async (override, error) => {
    const clientId = await newClient();
    const before = await rowCounts();
    const response = await fetch(requestOf(clientId, { state: "opaque state/+=", ...override }).url, {
      redirect: "manual",
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") as string);
    expect(location.origin + location.pathname).toBe(redirectUri);
    expect(location.searchParams.get("error")).toBe(error);
    expect(location.searchParams.get("state")).toBe("opaque state/+=");
    expect(await rowCounts()).toEqual(before);
  });

  it("refuses a sign-in with an address that is not an email, sending nothing", async () => {
    const { url } = requestOf(await newClient());
    const csrf = csrfTokenOf(await (await fetch(url)).text());
    const before = { ...(await rowCounts()), mails: platform.smtp.received.length };
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ step: "sign-in", csrf, email: "not-an-email" }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('id="problem"');
    expect(response.headers.get("set-cookie")).toBeNull();
    expect({ ...(await rowCounts()), mails: platform.smtp.received.length }).toEqual(before);
  });

  it("keeps an OAuth sign-in out of the agent claim endpoint", async () => {
    const { url } = requestOf(await newClient());
    const session = await signInForAuthorization(url, nextEmail(), platform.smtp);
    const claimToken = decodeURIComponent(session.cookie.split("=")[1] as string);
    for (const otp of ["000000", "123456"]) {
      const claimed = await postJson(`${platform.weft.url}/agent/auth/claim/complete`, {
        claim_token: claimToken,
        otp,
      });
      expect(claimed.body.error).toBe("invalid_grant");
    }
  });

  it("changes nothing on GET, and refuses a consent without its CSRF token", async () => {
    const { url } = requestOf(await newClient());
    const session = await signInForAuthorization(url, nextEmail(), platform.smtp);
    expect(session.consentHtml).toContain("Test MCP Client");
    expect(session.consentHtml).toContain("127.0.0.1:8765");
    expect(session.consentHtml).toContain("projects:write");
    const before = await rowCounts();
    await fetch(url, { headers: { cookie: session.cookie } });
    expect(await rowCounts()).toEqual(before);
    const forgedConsent = (contentType: string) =>
      fetch(url, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": contentType, cookie: session.cookie },
        body: new URLSearchParams({ step: "consent", decision: "approve", csrf: "1.x" }).toString(),
      });
    expect((await forgedConsent("application/x-www-form-urlencoded")).status).toBe(403);
    // A multipart content type without its boundary: the form cannot be read at all.
    const unreadable = await forgedConsent("multipart/form-data");
    expect(unreadable.status).toBe(400);
    expect(await unreadable.text()).toContain("This form could not be read");
    expect(await rowCounts()).toEqual(before);
  });

  it("tells the client access_denied, with its state, when the person denies", async () => {
    const { url } = requestOf(await newClient(), { state: "deny-me" });
    const answer = await answerConsent(url, await signInForAuthorization(url, nextEmail(), platform.smtp), "deny");
    expect(answer.location?.searchParams.get("error")).toBe("access_denied");
    expect(answer.location?.searchParams.get("state")).toBe("deny-me");
    expect(answer.location?.searchParams.has("code")).toBe(false);
  });
});

describe("token endpoint: authorization code", () => {
  it("issues an access token that works on /rpc and an agent of type oauth-client", async () => {
    const authorized = await authorize({ scope: "projects:read" });
    const token = await redeem(authorized);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "projects:read" });
    const listed = await callRpc(platform.weft.url, "projects.list", {}, { token: token.body.access_token });
    expect(listed.status).toBe(200);
    const agents = await callRpc(platform.weft.url, "agents.list", {}, { token: token.body.access_token });
    expect(agents.json).toMatchObject({
      results: [{ type: "oauth-client", scopes: ["projects:read"], agent: { clientId: authorized.clientId } }],
    });
    const refused = await callRpc(
      platform.weft.url,
      "projects.create",
      { name: "x" },
      { token: token.body.access_token },
    );
    expect(refused.status).toBe(403);
  });

  it("refuses a reused code with invalid_grant and revokes what it was exchanged for", async () => {
    const authorized = await authorize();
    const first = await redeem(authorized);
    expect(first.status).toBe(200);
    const again = await redeem(authorized);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject(
      invalidGrant("The authorization code was already redeemed; the tokens it was exchanged for are now revoked."),
    );
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: first.body.access_token })).status).toBe(
      401,
    );
  });

  it("refuses a missing or failing PKCE verifier with invalid_grant (RFC 7636 §4.6), spending the code", async () => {
    const unverified = await authorize();
    const missing = await redeem(unverified, { code_verifier: "" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject(invalidGrant(/code_verifier is missing/));
    const authorized = await authorize();
    const wrong = await redeem(authorized, { code_verifier: pkcePair().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject(invalidGrant(/does not match the code_challenge/));
    // The code was spent by the failed attempt, which issued nothing.
    for (const spent of [unverified, authorized]) {
      expect((await redeem(spent)).body).toMatchObject(
        invalidGrant(
          "The authorization code was already presented in a refused request, which spent it; start a new authorization.",
        ),
      );
    }
  });

  it("refuses a malformed PKCE verifier with invalid_request (RFC 7636 §4.1), leaving the code unspent", async () => {
    const authorized = await authorize();
    for (const verifier of ["too-short", `${pkcePair().verifier}!`, "a".repeat(129)]) {
      const malformed = await redeem(authorized, { code_verifier: verifier });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ error: "invalid_request", error_description: /RFC 7636 §4\.1/ });
    }
    expect((await redeem(authorized)).status).toBe(200);
  });

  it("refuses an unknown client with invalid_client", async () => {
    const authorized = await authorize();
    const response = await redeem(authorized, { client_id: "cli_01jxxxxxxxxxxxxxxxxxxxxxxx" });
    expect(response.body.error).toBe("invalid_client");
    expect((await redeem(authorized)).status).toBe(200);
  });

  it("accepts a code until 60 seconds after its issue, not at 60 seconds", async () => {
    const inTime = await authorize();
    platform.weft.clock.advance(60 * 1000 - 1);
    expect((await redeem(inTime)).status).toBe(200);
  });

  it("refuses a code after its 60 seconds, another client's code, and a different redirect URI", async () => {
    const late = await authorize();
    platform.weft.clock.advance(60 * 1000);
    // An expired code is not spent by the refusal: it is refused as expired again.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await redeem(late)).body).toMatchObject(
        invalidGrant("The authorization code expired (codes work for 60 s); start a new authorization."),
      );
    }
    const stolen = await authorize();
    const other = await newClient();
    expect((await redeem(stolen, { client_id: other })).body).toMatchObject(
      invalidGrant("The authorization code was issued to another client."),
    );
    expect((await redeem(stolen, { code: "woc_nothing" })).body).toMatchObject(
      invalidGrant("No authorization code of this server matches code."),
    );
    const moved = await authorize();
    expect((await redeem(moved, { redirect_uri: "http://127.0.0.1:8765/elsewhere" })).body.error).toBe("invalid_grant");
  });

  it("accepts the loopback redirect URI on the port the request used", async () => {
    const authorized = await authorize({ redirect: "http://127.0.0.1:51234/callback" });
    expect((await redeem(authorized)).status).toBe(200);
  });
});

/** The refresh grant: `clientId` presents `refreshToken`; `extra` adds parameters. */
const refresh = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
  requestToken(platform.weft.url, {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: refreshToken,
    ...extra,
  });

/** A client's first tokens: a fresh authorization, redeemed. */
async function firstTokens(): Promise<{ clientId: string; tokens: Record<string, string> }> {
  const authorized = await authorize();
  return { clientId: authorized.clientId, tokens: (await redeem(authorized)).body };
}

const grantRevoked = invalidGrant("The refresh token's grant was revoked; start a new authorization.");

describe("token endpoint: refresh token", () => {
  it("rotates the refresh token on every use; reusing a rotated one revokes the family", async () => {
    const { clientId, tokens: first } = await firstTokens();
    const second = await refresh(clientId, first.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    // The replaced access token stops working; the new one works.
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: first.access_token })).status).toBe(401);
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: second.body.access_token })).status).toBe(
      200,
    );
    const widened = await refresh(clientId, second.body.refresh_token as string, { scope: "projects:read admin" });
    expect(widened.body.error).toBe("invalid_scope");
    const reused = await refresh(clientId, first.refresh_token as string);
    expect(reused.body).toMatchObject(
      invalidGrant("The refresh token was already used once; every token of its grant is now revoked."),
    );
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: second.body.access_token })).status).toBe(
      401,
    );
    // Never used itself, the latest refresh token is refused for what happened to it: its grant was revoked.
    expect((await refresh(clientId, second.body.refresh_token as string)).body).toMatchObject(grantRevoked);
  });

  it("refuses a refresh token after its 30 days as expired, every time", async () => {
    const { clientId, tokens } = await firstTokens();
    platform.weft.clock.advance(30 * 24 * 60 * 60 * 1000);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await refresh(clientId, tokens.refresh_token as string)).body).toMatchObject(
        invalidGrant("The refresh token expired; start a new authorization."),
      );
    }
  });

  it("refuses an unknown client and an unknown token", async () => {
    const { clientId, tokens } = await firstTokens();
    const unknownClient = await refresh("cli_nobody", tokens.refresh_token as string);
    expect(unknownClient.body.error).toBe("invalid_client");
    const unknownToken = await refresh(clientId, "wrt_nothing");
    expect(unknownToken.body).toMatchObject(invalidGrant("No refresh token of this server matches refresh_token."));
  });

  it("refuses a refresh token another client presents", async () => {
    const { tokens } = await firstTokens();
    const stolen = await refresh(await newClient(), tokens.refresh_token as string);
    expect(stolen.body).toMatchObject(invalidGrant("The refresh token was issued to another client."));
  });

  it("stops refreshing an agent revoked through agents.revoke", async () => {
    const { clientId, tokens } = await firstTokens();
    const agents = (await callRpc(platform.weft.url, "agents.list", {}, { token: tokens.access_token })).json as {
      results: { id: string }[];
    };
    const agentId = agents.results[0]?.id as string;
    const revoked = await callRpc(platform.weft.url, "agents.revoke", { agentId }, { token: tokens.access_token });
    expect(revoked.status).toBe(200);
    // Refused the same way every time: presenting it again is no reuse, since its grant is revoked.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await refresh(clientId, tokens.refresh_token as string)).body).toMatchObject(grantRevoked);
    }
  });
});
