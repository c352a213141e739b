import { randomUUID } from "node:crypto";
import {
  completeClaim,
  createClient,
  type Discovery,
  discover,
  exchangeToken,
  idJagAssertionType,
  RegistrationError,
  registerWithEmail,
  registerWithIdJag,
  revokeCredential,
  type WeftClient,
} from "@weft/client";
import {
  claimCodeOf,
  createTestIdentity,
  decide,
  freePort,
  idJagClaimsFor,
  type SmtpSink,
  startSmtpSink,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentityProvider,
  type TestPlatform,
  trustedIssuersEnv,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let idp: TestIdentityProvider;
let smtp: SmtpSink;
let weft: TestPlatform;
let found: Discovery;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  smtp = await startSmtpSink();
  weft = await startTestPlatform({
    env: {
      WEFT_TRUSTED_ISSUERS: trustedIssuersEnv(idp),
      SMTP_URL: smtp.url,
      // The federation issuer serves on loopback: the operator's exemption lets the platform fetch its keys.
      WEFT_SANDBOX_EGRESS_ALLOW: new URL(idp.issuer).host,
    },
  });
  found = await discover(weft.url);
});

afterAll(async () => {
  await weft.stop();
  await smtp.close();
  await idp.close();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => error,
  );
}

function idJag(email: string): Promise<string> {
  return idp.sign(idJagClaimsFor(idp, found.authUrl, weft.clock.now(), { sub: `user-${email}`, email }));
}

/** What every agent should be able to do with its credential: the whole projects namespace. */
async function manageProjects(client: WeftClient): Promise<void> {
  const created = await client.projects.create({ name: "Agent project" });
  expect(await client.projects.get({ projectId: created.id })).toEqual(created);
  expect((await client.projects.list({})).results).toContainEqual(created);
  expect(await client.projects.update({ projectId: created.id, name: "Renamed by agent" })).toMatchObject({
    name: "Renamed by agent",
  });
  expect(await client.projects.delete({ projectId: created.id })).toEqual({ id: created.id, deleted: true });
}

describe("discover", () => {
  it("follows a bare 401 to the protected resource metadata and the authorization server metadata", async () => {
    expect(found).toMatchObject({
      resourceMetadataUrl: `${weft.url}/.well-known/oauth-protected-resource`,
      resourceMetadata: { resource: weft.url, authorization_servers: [weft.url] },
      authUrl: weft.url,
      identityAssertionTypesSupported: expect.arrayContaining([idJagAssertionType, "verified_email"]),
      registerUri: `${weft.url}/agent/auth`,
      claimUri: `${weft.url}/agent/auth/claim/complete`,
      revocationUri: `${weft.url}/agent/auth/revoke`,
    });
  });

  it("finds an authorization server that lives under a path (RFC 8414 well-known URL)", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const pathful = await startTestPlatform({
      env: { PORT: String(port), WEFT_BASE_URL: base, WEFT_AUTH_URL: `${base}/auth`, SMTP_URL: smtp.url },
    });
    try {
      const there = await discover(pathful.url);
      expect(there).toMatchObject({ authUrl: `${base}/auth`, registerUri: `${base}/auth/agent/auth` });
      const pending = await registerWithEmail(there, "pathful@example.com");
      expect(pending.claimToken).toMatch(/^clm_/);
    } finally {
      await pathful.stop();
    }
  });

  it("claims at the endpoint the server advertises, and where none is advertised refuses rather than guess one", async () => {
    const metadata = (await (await fetch(`${weft.url}/.well-known/oauth-authorization-server`)).json()) as {
      agent_auth: { claim_uri: string };
    };
    expect(found.claimUri).toBe(metadata.agent_auth.claim_uri);

    // The same server, seen as one whose metadata names no claim endpoint.
    const withoutClaimEndpoint: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes("/.well-known/oauth-authorization-server")) return response;
      const served = (await response.json()) as { agent_auth: Record<string, unknown> };
      const { claim_uri: _, ...agentAuth } = served.agent_auth;
      return Response.json({ ...served, agent_auth: agentAuth });
    };
    const unadvertised = await discover(weft.url, { fetch: withoutClaimEndpoint });
    expect(unadvertised.claimUri).toBeUndefined();
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      sent.push(String(input));
      return fetch(input, init);
    };
    const error = await rejection(
      completeClaim(unadvertised, { claimToken: "clm_never_sent", otp: "123456" }, { fetch: recording }),
    );
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toMatchObject({ code: "discovery_failed", message: expect.stringContaining("agent_auth.claim_uri") });
    expect(sent).toEqual([]);
  });

  it("refuses an address that does not challenge an unauthenticated call", async () => {
    const error = await rejection(discover(`${weft.url}/nowhere`));
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toMatchObject({ code: "discovery_failed" });
  });
});

describe("an agent registered with an ID-JAG", () => {
  it("manages projects until its credential is revoked, then gets 401 invalid_token", async () => {
    const issued = await registerWithIdJag(found, await idJag("idjag-user@example.com"));
    expect(issued).toMatchObject({ credentialType: "api_key", scopes: expect.arrayContaining(["projects:write"]) });
    const client = createClient({ baseUrl: weft.url, token: issued.credential });
    await manageProjects(client);

    await revokeCredential(found, issued.credential);
    expect(await rejection(client.projects.list({}))).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    const raw = await fetch(`${weft.url}/rpc/projects/list`, {
      method: "POST",
      headers: { authorization: `Bearer ${issued.credential}`, "content-type": "application/json" },
      body: JSON.stringify({ json: {} }),
    });
    expect(raw.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("surfaces a refused assertion as a RegistrationError with the server's code", async () => {
    const error = await rejection(registerWithIdJag(found, "not.a.jwt"));
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toMatchObject({ code: "invalid_assertion", status: 400, message: expect.any(String) });
  });
});

describe("an agent registered with a verified email", () => {
  it("claims its credential with the user's code and manages projects", async () => {
    const email = "email-user@example.com";
    const pending = await registerWithEmail(found, email, { agentName: "ClientLibraryTest/1.0" });
    expect(pending.claimToken).toMatch(/^clm_/);
    const approved = await decide(smtp.approvalLinkFor(email), "approve");
    const otp = claimCodeOf(approved.html);

    const wrong = await rejection(
      completeClaim(found, { claimToken: pending.claimToken, otp: otp === "000000" ? "111111" : "000000" }),
    );
    expect(wrong).toMatchObject({ code: "invalid_grant" });

    const claimed = await completeClaim(found, { claimToken: pending.claimToken, otp });
    expect(claimed).toMatchObject({ status: "claimed", registrationId: pending.registrationId });
    await manageProjects(createClient({ baseUrl: weft.url, token: claimed.credential }));
  });
});

describe("a CI job with its identity provider's OIDC token", () => {
  it("exchanges it for a credential of one project", async () => {
    const owner = await createTestIdentity(weft, "ci-owner@example.com");
    const ownerClient = createClient({ baseUrl: weft.url, token: owner.credential });
    const project = await ownerClient.projects.create({ name: "deployed-from-ci" });
    await ownerClient.projects.create({ name: "not-for-ci" });
    await ownerClient.access.createFederationPolicy({
      workspaceId: owner.personalWorkspaceId,
      projectId: project.id,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:ci/app:*",
      scopes: ["projects:read", "deployments:write"],
    });
    const now = Math.floor(weft.clock.now().getTime() / 1000);
    const oidcToken = await idp.sign(
      {
        iss: idp.issuer,
        aud: "weft",
        sub: "repo:ci/app:ref:refs/heads/main",
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
      },
      { typ: "JWT" },
    );
    const exchanged = await exchangeToken(
      found,
      { subjectToken: oidcToken, audience: project.id, scope: "projects:read" },
      { now: () => weft.clock.now() },
    );
    expect(exchanged).toEqual({
      accessToken: expect.stringMatching(/^weft_/),
      expiresAt: new Date(weft.clock.now().getTime() + 900_000),
      scopes: ["projects:read"],
    });
    const listed = await createClient({ baseUrl: weft.url, token: exchanged.accessToken }).projects.list({});
    expect(listed.results.map((each) => each.id)).toEqual([project.id]);

    const refused = await rejection(exchangeToken(found, { subjectToken: oidcToken, audience: "prj_unknown" }));
    expect(refused).toBeInstanceOf(RegistrationError);
    expect(refused).toMatchObject({ code: "invalid_target", status: 400 });
  });
});
