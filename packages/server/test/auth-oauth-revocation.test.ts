import {
  authorizedCode,
  callRpc,
  emailSequence,
  mailingTestPlatform,
  redeemCode,
  registerEmailAgent,
  registerOAuthClient,
  requestToken,
  revokeToken,
  unthrottledSignUpEnv,
} from "@weft/testing";
import { describe, expect, it } from "vitest";

const platform = mailingTestPlatform({ env: { ...unthrottledSignUpEnv, WEFT_RATE_LIMIT_REVOKE: "10000" } });
const redirectUri = "http://127.0.0.1:8765/callback";

const nextEmail = emailSequence("revoke");

async function newClient(): Promise<string> {
  const registered = await registerOAuthClient(platform.weft.url, {
    client_name: "Revoking Client",
    redirect_uris: [redirectUri],
  });
  expect(registered.status).toBe(201);
  return registered.body.client_id as string;
}

interface Grant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

/** A new client's grant: a person signs in and allows it, and the code is redeemed. */
async function newGrant(): Promise<Grant> {
  const authorized = await authorizedCode(platform.weft.url, platform.smtp, {
    clientId: await newClient(),
    redirectUri,
    email: nextEmail(),
    state: "revocation",
  });
  const redeemed = await redeemCode(platform.weft.url, authorized);
  expect(redeemed.status).toBe(200);
  return {
    clientId: authorized.clientId,
    accessToken: redeemed.body.access_token as string,
    refreshToken: redeemed.body.refresh_token as string,
  };
}

const rpcStatus = async (token: string) => (await callRpc(platform.weft.url, "projects.list", {}, { token })).status;
const refresh = (grant: Grant) =>
  requestToken(platform.weft.url, {
    grant_type: "refresh_token",
    client_id: grant.clientId,
    refresh_token: grant.refreshToken,
  });

/** Whether a grant's access token still works on /rpc and its refresh token still refreshes (spending it). */
async function expectGrantLive(grant: Grant): Promise<void> {
  expect(await rpcStatus(grant.accessToken)).toBe(200);
  expect((await refresh(grant)).status).toBe(200);
}

async function expectGrantRevoked(grant: Grant): Promise<void> {
  expect(await rpcStatus(grant.accessToken)).toBe(401);
  expect((await refresh(grant)).body).toMatchObject({
    error: "invalid_grant",
    error_description: "The refresh token's grant was revoked; start a new authorization.",
  });
}

const succeeded = { status: 200, body: null };

describe("authorization server metadata", () => {
  it("advertises /oauth2/revoke for OAuth tokens and keeps /agent/auth/revoke for agent credentials", async () => {
    const metadata = await (await fetch(`${platform.weft.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      revocation_endpoint: `${platform.weft.url}/oauth2/revoke`,
      revocation_endpoint_auth_methods_supported: ["none"],
      agent_auth: { revocation_uri: `${platform.weft.url}/agent/auth/revoke` },
    });
  });
});

describe("POST /oauth2/revoke (RFC 7009)", () => {
  it("revokes an access token and with it the grant: 200 with an empty body, no-store", async () => {
    const grant = await newGrant();
    const response = await fetch(`${platform.weft.url}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: grant.accessToken,
        token_type_hint: "access_token",
        client_id: grant.clientId,
      }).toString(),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(response.headers.get("cache-control")).toBe("no-store");
    await expectGrantRevoked(grant);
  });

  it("revokes a refresh token and every access token of its grant", async () => {
    const grant = await newGrant();
    const revoked = await revokeToken(platform.weft.url, {
      token: grant.refreshToken,
      token_type_hint: "refresh_token",
      client_id: grant.clientId,
    });
    expect(revoked).toEqual(succeeded);
    await expectGrantRevoked(grant);
  });

  it("takes token_type_hint as a hint only: a wrong or unknown one still finds the token", async () => {
    for (const hint of ["refresh_token", "urn:example:other"]) {
      const grant = await newGrant();
      expect(
        await revokeToken(platform.weft.url, {
          token: grant.accessToken,
          token_type_hint: hint,
          client_id: grant.clientId,
        }),
      ).toEqual(succeeded);
      await expectGrantRevoked(grant);
    }
    const grant = await newGrant();
    expect(await revokeToken(platform.weft.url, { token: grant.refreshToken, client_id: grant.clientId })).toEqual(
      succeeded,
    );
    await expectGrantRevoked(grant);
  });

  it("answers 200 for an unknown token and for one already revoked, changing nothing", async () => {
    const grant = await newGrant();
    for (const token of ["wrt_unknown", "weft_unknown", "anything at all"]) {
      expect(await revokeToken(platform.weft.url, { token, client_id: grant.clientId })).toEqual(succeeded);
    }
    expect(await revokeToken(platform.weft.url, { token: grant.accessToken, client_id: grant.clientId })).toEqual(
      succeeded,
    );
    expect(await revokeToken(platform.weft.url, { token: grant.accessToken, client_id: grant.clientId })).toEqual(
      succeeded,
    );
    expect(await revokeToken(platform.weft.url, { token: grant.refreshToken, client_id: grant.clientId })).toEqual(
      succeeded,
    );
    await expectGrantRevoked(grant);
  });

  it("leaves another client's tokens valid, answering 200 as for any token it cannot revoke (RFC 7009 §2.1)", async () => {
    const grant = await newGrant();
    const other = await newClient();
    for (const [token, hint] of [
      [grant.accessToken, "access_token"],
      [grant.refreshToken, "refresh_token"],
    ] as const) {
      expect(await revokeToken(platform.weft.url, { token, token_type_hint: hint, client_id: other })).toEqual(
        succeeded,
      );
    }
    await expectGrantLive(grant);
  });

  it("leaves an agent credential of /agent/auth alone; /agent/auth/revoke still revokes it", async () => {
    const agent = await registerEmailAgent(platform.weft, nextEmail(), { smtp: platform.smtp });
    const client = await newClient();
    expect(await revokeToken(platform.weft.url, { token: agent.credential, client_id: client })).toEqual(succeeded);
    expect(await rpcStatus(agent.credential)).toBe(200);
    const revoked = await fetch(`${platform.weft.url}/agent/auth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ credential: agent.credential }),
    });
    expect(revoked.status).toBe(200);
    expect(await rpcStatus(agent.credential)).toBe(401);
  });
});

describe("POST /oauth2/revoke refuses bad input, changing nothing", () => {
  it.each([
    [{}, "invalid_request", "token is required."],
    [{ token: "" }, "invalid_request", "token is required."],
    [{ token: "x" }, "invalid_client", "client_id is required: name the client the token was issued to."],
    [{ token: "x", client_id: "cli_nobody" }, "invalid_client", "client_id names no registered client."],
    [
      { token: "x", token_type_hint: "id_token", client_id: "@client" },
      "unsupported_token_type",
      "token_type_hint id_token names a type this server does not revoke; it revokes access_token and refresh_token.",
    ],
  ])("refuses %j with 400 %s", async (parameters, error, description) => {
    const grant = await newGrant();
    const form = Object.fromEntries(
      Object.entries(parameters).map(([name, value]) => [name, value === "@client" ? grant.clientId : value]),
    );
    expect(await revokeToken(platform.weft.url, form)).toEqual({
      status: 400,
      body: { error, error_description: description },
    });
    await expectGrantLive(grant);
  });

  it("refuses a parameter given twice with invalid_request", async () => {
    const grant = await newGrant();
    const response = await fetch(`${platform.weft.url}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${grant.accessToken}&token=${grant.refreshToken}&client_id=${grant.clientId}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_request",
      error_description: "token is given more than once.",
    });
    await expectGrantLive(grant);
  });

  it("refuses a JSON body with invalid_request, naming the form it wants", async () => {
    const grant = await newGrant();
    const response = await fetch(`${platform.weft.url}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: grant.accessToken, client_id: grant.clientId }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_request",
      error_description:
        "Send the revocation request (RFC 7009 §2.1) as Content-Type: application/x-www-form-urlencoded.",
    });
    await expectGrantLive(grant);
  });

  it("refuses a form body over 1 MiB with 413, as the token endpoint does", async () => {
    const grant = await newGrant();
    const form = new URLSearchParams({ token: grant.accessToken, client_id: grant.clientId }).toString();
    const response = await fetch(`${platform.weft.url}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${form}&padding=${"a".repeat(1024 * 1024)}`,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "payload_too_large" });
    await expectGrantLive(grant);
  });
});
