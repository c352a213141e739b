import { randomUUID } from "node:crypto";
import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  joinWorkspace,
  postTokenRequest,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentity,
  type TestIdentityProvider,
  type TestPlatform,
} from "@weft/testing";
import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentials, federationPolicies, registrations } from "../src/db/schema/index.ts";

let idp: TestIdentityProvider;
let otherIdp: TestIdentityProvider;
let weft: TestPlatform;
let owner: TestIdentity;
let member: TestIdentity;
let teamId: string;
let projectId: string;
let siblingId: string;
let strangerProjectId: string;

const call = (token: string, procedure: string, input: unknown) => callRpc(weft.url, procedure, input, { token });
const repository = "repo:weft-dev/app:ref:refs/heads/main";

async function createProject(token: string, name: string, workspaceId?: string): Promise<string> {
  const created = await call(token, "projects.create", { name, ...(workspaceId === undefined ? {} : { workspaceId }) });
  if (created.status !== 200) throw new Error(created.text);
  return (created.json as { id: string }).id;
}

/** A policy of the team's project with the least in it, for the tests that change one thing of it. */
function plainPolicy(input: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    workspaceId: teamId,
    projectId,
    issuer: idp.issuer,
    audience: "weft",
    subject: "x",
    scopes: ["projects:read"],
    ...input,
  };
}

async function createPolicy(input: Record<string, unknown> = {}): Promise<{ id: string }> {
  const created = await call(owner.credential, "access.createFederationPolicy", {
    workspaceId: teamId,
    projectId,
    issuer: idp.issuer,
    audience: "weft",
    subject: "repo:weft-dev/app:*",
    claims: { repository_owner: "weft-dev" },
    scopes: ["projects:read", "projects:write", "deployments:write"],
    ...input,
  });
  if (created.status !== 200) throw new Error(created.text);
  return created.json as { id: string };
}

function nowSeconds(): number {
  return Math.floor(weft.clock.now().getTime() / 1000);
}

function ciClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: idp.issuer,
    sub: repository,
    aud: "weft",
    repository_owner: "weft-dev",
    jti: randomUUID(),
    iat: nowSeconds(),
    nbf: nowSeconds(),
    exp: nowSeconds() + 300,
    ...overrides,
  };
}

const ciToken = (overrides: Record<string, unknown> = {}) => idp.sign(ciClaims(overrides), { typ: "JWT" });

function exchange(subjectToken: string, fields: Record<string, string> = {}) {
  return postTokenRequest(weft.url, { subjectToken, audience: projectId, fields });
}

async function exchangeForCredential(fields: Record<string, string> = {}): Promise<string> {
  const response = await exchange(await ciToken(), fields);
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return response.body.access_token as string;
}

const countCredentials = async () => (await weft.database.db.select().from(credentials)).length;

async function expectRefused(response: Promise<{ status: number; body: Record<string, unknown> }>, error: string) {
  const before = await countCredentials();
  const answered = await response;
  expect(answered.body).toEqual({ error, error_description: expect.any(String) });
  expect(answered.status).toBe(400);
  expect(await countCredentials()).toBe(before);
}

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  otherIdp = await startTestIdentityProvider();
  // The issuer serves on loopback: the operator's exemption lets the platform fetch its keys.
  weft = await startTestPlatform({
    env: { WEFT_RATE_LIMIT_REGISTER: "10000", WEFT_SANDBOX_EGRESS_ALLOW: new URL(idp.issuer).host },
  });
  owner = await createTestIdentity(weft, "owner@example.com");
  member = await createTestIdentity(weft, "member@example.com");
  const stranger = await createTestIdentity(weft, "stranger@example.com");
  teamId = await createTeamWorkspace(weft, owner, "CI Inc");
  await joinWorkspace(weft, { workspaceId: teamId, by: owner, member, role: "member" });
  projectId = await createProject(owner.credential, "app", teamId);
  siblingId = await createProject(owner.credential, "sibling", teamId);
  strangerProjectId = await createProject(stranger.credential, "theirs");
  await createPolicy();
});

afterAll(async () => {
  await weft?.stop();
  await idp?.close();
  await otherIdp?.close();
});

describe("federation policies", () => {
  it("are created with a 15-minute default lifetime, listed per project, and audited", async () => {
    const policy = await createPolicy({
      subject: "repo:weft-dev/tools:*",
      claims: undefined,
      scopes: ["projects:read"],
    });
    expect(policy).toMatchObject({ projectId, issuer: idp.issuer, maxTtlSeconds: 900, claims: null });
    const listed = await call(owner.credential, "access.listFederationPolicies", { workspaceId: teamId, projectId });
    expect((listed.json as { results: { id: string }[] }).results.map((each) => each.id)).toContain(policy.id);
    const elsewhere = await call(owner.credential, "access.listFederationPolicies", {
      workspaceId: teamId,
      projectId: siblingId,
    });
    expect((elsewhere.json as { totalCount: number }).totalCount).toBe(0);
    const log = await call(owner.credential, "access.auditLog", {
      workspaceId: teamId,
      filter: { action: "federation_policy.created", targetId: policy.id },
    });
    expect((log.json as { data: unknown[] }).data).toHaveLength(1);
  });

  it("refuses a policy without subject or claims, which would trust every token of the issuer", async () => {
    const before = await weft.database.db.select().from(federationPolicies);
    for (const conditions of [
      { subject: undefined, claims: undefined },
      { subject: undefined, claims: {} },
    ]) {
      const refused = await call(owner.credential, "access.createFederationPolicy", {
        workspaceId: teamId,
        projectId,
        issuer: idp.issuer,
        audience: "weft",
        scopes: ["projects:read"],
        ...conditions,
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/subject or claims/);
    }
    expect(await weft.database.db.select().from(federationPolicies)).toHaveLength(before.length);
  });

  it.each([
    ["an http issuer off loopback", { issuer: "http://idp.example.com" }],
    ["an issuer with a query", { issuer: "https://idp.example.com/?a=1" }],
    ["a lifetime over an hour", { maxTtlSeconds: 3601 }],
    ["an unknown scope", { scopes: ["projects:admin"] }],
    ["no scope", { scopes: [] }],
  ])("refuses %s", async (_what, input) => {
    const refused = await call(owner.credential, "access.createFederationPolicy", plainPolicy(input));
    expect(refused.status).toBe(400);
  });

  it("are managed by owners and admins only", async () => {
    const refused = await call(member.credential, "access.createFederationPolicy", plainPolicy());
    expect(refused.status).toBe(403);
    const foreign = await call(
      owner.credential,
      "access.createFederationPolicy",
      plainPolicy({ projectId: strangerProjectId }),
    );
    expect(foreign.status).toBe(404);
  });
});

describe("token exchange", () => {
  it("gives a credential confined to the project, with the policy's scopes", async () => {
    const response = await exchange(await ciToken());
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      access_token: expect.stringMatching(/^weft_/),
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 900,
      scope: "projects:read projects:write deployments:write",
    });
    const token = response.body.access_token as string;
    const listed = await call(token, "projects.list", {});
    expect((listed.json as { results: { id: string }[] }).results.map((each) => each.id)).toEqual([projectId]);
    const inWorkspace = await call(token, "projects.list", { workspaceId: teamId });
    expect((inWorkspace.json as { totalCount: number }).totalCount).toBe(1);
    expect((await call(token, "projects.get", { projectId })).status).toBe(200);
    expect((await call(token, "projects.get", { projectId: siblingId })).status).toBe(404);
    expect((await call(token, "projects.get", { projectId: strangerProjectId })).status).toBe(404);
    const described = await fetch(`${weft.url}/agent/auth/credential`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await described.json()).toMatchObject({
      email: owner.email,
      projectId,
      workspaces: [{ id: teamId, name: "CI Inc", role: "member" }],
    });
    // deployments:read was not granted
    expect((await call(token, "deployments.list", { projectId })).status).toBe(403);
  });

  it("narrows to the scopes asked for, and refuses a scope beyond the policy", async () => {
    const narrowed = await exchange(await ciToken(), { scope: "projects:read" });
    expect(narrowed.body.scope).toBe("projects:read");
    await expectRefused(exchange(await ciToken(), { scope: "projects:read deployments:read" }), "invalid_scope");
    await expectRefused(exchange(await ciToken(), { scope: "projects:everything" }), "invalid_scope");
  });

  it("accepts the project's address as resource", async () => {
    const response = await postTokenRequest(weft.url, {
      subjectToken: await ciToken(),
      fields: { resource: `${weft.url}/projects/${projectId}` },
    });
    expect(response.status).toBe(200);
  });

  it("cannot manage members, agents or policies, nor create projects", async () => {
    const token = await exchangeForCredential();
    for (const [procedure, input] of [
      ["access.listMembers", { workspaceId: teamId }],
      ["access.invite", { workspaceId: teamId, email: "x@example.com", role: "admin" }],
      ["access.listWorkspaces", {}],
      [
        "access.createFederationPolicy",
        { workspaceId: teamId, projectId, issuer: idp.issuer, audience: "a", subject: "b", scopes: ["projects:read"] },
      ],
      ["agents.list", {}],
      ["agents.revokeAll", { workspaceId: teamId }],
      ["projects.create", { name: "more", workspaceId: teamId }],
    ] as const) {
      expect((await call(token, procedure, input)).status, procedure).toBe(403);
    }
  });

  it("shows as a federated agent to the workspace's admins, and is the actor of what it does", async () => {
    const token = await exchangeForCredential();
    const renamed = await call(token, "projects.update", { projectId, name: "app" });
    expect(renamed.status).toBe(200);
    const agents = await call(owner.credential, "agents.list", { workspaceId: teamId, status: "active" });
    const federated = (agents.json as { results: { id: string; type: string; federation: unknown }[] }).results.filter(
      (agent) => agent.type === "federated",
    );
    expect(federated.length).toBeGreaterThan(0);
    expect(federated.at(-1)?.federation).toEqual({
      policyId: expect.stringMatching(/^fed_/),
      projectId,
      subject: repository,
    });
    const log = await call(owner.credential, "access.auditLog", {
      workspaceId: teamId,
      filter: { action: "registration.created" },
    });
    const event = (log.json as { data: { actor: { agentId: string }; data: { type: string } }[] }).data[0];
    expect(event?.data.type).toBe("federated");
    expect(event?.actor.agentId).toBe(federated.at(-1)?.id);
  });

  it("expires on time (injected clock), never beyond the token's exp + 1 h", async () => {
    const policy = await createPolicy({ subject: "repo:weft-dev/long:*", maxTtlSeconds: 3600 });
    const late = await exchange(await ciToken({ sub: "repo:weft-dev/long:x", exp: nowSeconds() - 30 }));
    expect(late.body.expires_in).toBe(3570);
    const token = await exchangeForCredential();
    weft.clock.advance(899_000);
    expect((await call(token, "projects.get", { projectId })).status).toBe(200);
    weft.clock.advance(1_000);
    expect((await call(token, "projects.get", { projectId })).status).toBe(401);
    await call(owner.credential, "access.deleteFederationPolicy", { policyId: policy.id });
  });

  it("is cut off when its agent is revoked", async () => {
    const token = await exchangeForCredential();
    const [row] = (await weft.database.db.select().from(registrations))
      .filter((each) => each.type === "federated")
      .slice(-1);
    expect((await call(token, "projects.get", { projectId })).status).toBe(200);
    const revoked = await call(owner.credential, "agents.revoke", { agentId: row?.id });
    expect(revoked.status).toBe(200);
    expect((await call(token, "projects.get", { projectId })).status).toBe(401);
  });

  it("reaches nothing once the policy's creator has left the workspace", async () => {
    const admin = await createTestIdentity(weft, "leaving-admin@example.com");
    await joinWorkspace(weft, { workspaceId: teamId, by: owner, member: admin, role: "admin" });
    const policy = await call(admin.credential, "access.createFederationPolicy", {
      workspaceId: teamId,
      projectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:weft-dev/admins-own:*",
      scopes: ["projects:read"],
    });
    expect(policy.status).toBe(200);
    const claims = { sub: "repo:weft-dev/admins-own:ref:refs/heads/main" };
    const given = await exchange(await ciToken(claims));
    const token = given.body.access_token as string;
    expect((await call(token, "projects.get", { projectId })).status).toBe(200);
    const removed = await call(owner.credential, "access.removeMember", {
      workspaceId: teamId,
      accountId: admin.accountId,
    });
    expect(removed.status).toBe(200);
    expect((await call(token, "projects.get", { projectId })).status).toBe(404);
    await expectRefused(exchange(await ciToken(claims)), "invalid_request");
  });

  describe("refuses", () => {
    it.each([
      [
        "a token of an issuer no policy names",
        () => otherIdp.sign({ ...ciClaims(), iss: otherIdp.issuer }, { typ: "JWT" }),
      ],
      ["another audience", () => ciToken({ aud: "not-weft" })],
      ["another subject", () => ciToken({ sub: "repo:someone/else:ref:refs/heads/main" })],
      ["another claim value", () => ciToken({ repository_owner: "someone" })],
      ["a missing claim", () => ciToken({ repository_owner: undefined })],
      ["an expired token", () => ciToken({ exp: nowSeconds() - 61 })],
      ["a token not yet valid", () => ciToken({ nbf: nowSeconds() + 120 })],
      ["a token issued in the future", () => ciToken({ iat: nowSeconds() + 120 })],
      ["a bad signature", () => otherIdp.sign(ciClaims(), { typ: "JWT", kid: "key-1" })],
      [
        "alg none",
        async () =>
          `${base64url.encode(JSON.stringify({ alg: "none", typ: "JWT" }))}.${base64url.encode(JSON.stringify(ciClaims()))}.`,
      ],
      [
        "HS256",
        () =>
          new SignJWT(ciClaims())
            .setProtectedHeader({ alg: "HS256", typ: "JWT" })
            .sign(new TextEncoder().encode("a-shared-secret-of-32-bytes-long!")),
      ],
      ["something that is not a JWT", async () => "not-a-jwt"],
    ])("%s as invalid_request", async (_what, token) => {
      await expectRefused(exchange(await token()), "invalid_request");
    });

    it("a replayed jti", async () => {
      const token = await ciToken();
      expect((await exchange(token)).status).toBe(200);
      await expectRefused(exchange(token), "invalid_request");
    });

    it("a token once its policy is deleted, and revokes the credentials it gave", async () => {
      const policy = await createPolicy({ subject: "repo:weft-dev/gone:*" });
      const claims = { sub: "repo:weft-dev/gone:ref:refs/heads/main" };
      const given = await exchange(await ciToken(claims));
      expect(given.status).toBe(200);
      const deleted = await call(owner.credential, "access.deleteFederationPolicy", { policyId: policy.id });
      expect(deleted.status).toBe(200);
      expect((await call(given.body.access_token as string, "projects.list", {})).status).toBe(401);
      await expectRefused(exchange(await ciToken(claims)), "invalid_request");
    });

    it("a token for a deleted project, or an unknown one, as invalid_target", async () => {
      const doomed = await createProject(owner.credential, "doomed", teamId);
      await call(owner.credential, "access.createFederationPolicy", {
        workspaceId: teamId,
        projectId: doomed,
        issuer: idp.issuer,
        audience: "weft",
        subject: repository,
        scopes: ["projects:read"],
      });
      expect((await postTokenRequest(weft.url, { subjectToken: await ciToken(), audience: doomed })).status).toBe(200);
      expect((await call(owner.credential, "projects.delete", { projectId: doomed })).status).toBe(200);
      await expectRefused(
        postTokenRequest(weft.url, { subjectToken: await ciToken(), audience: doomed }),
        "invalid_target",
      );
      await expectRefused(
        postTokenRequest(weft.url, { subjectToken: await ciToken(), audience: "https://elsewhere.example.com" }),
        "invalid_target",
      );
    });

    it("malformed requests", async () => {
      const token = await ciToken();
      await expectRefused(exchange(token, { grant_type: "client_credentials" }), "unsupported_grant_type");
      await expectRefused(
        exchange(token, { subject_token_type: "urn:ietf:params:oauth:token-type:saml2" }),
        "invalid_request",
      );
      await expectRefused(postTokenRequest(weft.url, { subjectToken: token }), "invalid_request");
      await expectRefused(postTokenRequest(weft.url, { audience: projectId }), "invalid_request");
      const json = await fetch(`${weft.url}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ error: "invalid_request" });
    });
  });

  it("is advertised in the authorization server metadata", async () => {
    const metadata = (await (await fetch(`${weft.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.token_endpoint).toBe(`${weft.url}/oauth2/token`);
    expect(metadata.grant_types_supported).toContain("urn:ietf:params:oauth:grant-type:token-exchange");
  });

  it("finds the issuer's keys through its OpenID configuration, cached", () => {
    expect(idp.discoveryFetches()).toBe(1);
    expect(idp.jwksFetches()).toBe(1);
  });
});
