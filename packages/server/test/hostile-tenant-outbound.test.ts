import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  freePort,
  postTokenRequest,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentity,
  type TestIdentityProvider,
  type TestPlatform,
} from "@weft/testing";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { credentials, federationPolicies } from "../src/db/schema/index.ts";
import { createManualTimers } from "../src/shared/timers.ts";

/**
 * Issuers a tenant runs to turn the platform against its own network: every path prefix of one
 * loopback server is another issuer (`{origin}/{behaviour}`), answering its OpenID configuration
 * and key set as that behaviour says.
 */
type Behaviour =
  | "not-found"
  | "not-json"
  | "other-issuer"
  | "stream"
  | "trickle"
  | "jwks-on-closed-port"
  | "jwks-stream";

let hostile: Server;
let hostileOrigin: string;
/** Connections the hostile issuer holds open right now. */
let openConnections = 0;
const requested: string[] = [];
let closedPort: number;
let idp: TestIdentityProvider;
let weft: TestPlatform;
let owner: TestIdentity;
let teamId: string;
let projectId: string;
const timers = createManualTimers();
/** How many times each name was resolved: `rebind.weft.test` answers a public address once, loopback after. */
const resolutions = new Map<string, number>();
const chunk = Buffer.alloc(64 * 1024, " ");

function streamForever(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.write('{"issuer":"');
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {
      // fills the socket's buffer; `drain` continues
    }
  };
  response.on("drain", pump);
  pump();
}

function answer(behaviour: string, rest: string, response: ServerResponse): void {
  const issuer = `${hostileOrigin}/${behaviour}`;
  const configuration = (jwksUri: string) => JSON.stringify({ issuer, jwks_uri: jwksUri });
  switch (behaviour as Behaviour) {
    case "not-found":
      response.writeHead(404).end();
      return;
    case "not-json":
      response.writeHead(200, { "content-type": "text/html" }).end("<html>an admin console</html>");
      return;
    case "other-issuer":
      response.end(JSON.stringify({ issuer: "https://elsewhere.example.com", jwks_uri: `${issuer}/jwks` }));
      return;
    case "stream":
      streamForever(response);
      return;
    case "trickle":
      response.writeHead(200, { "content-type": "application/json" });
      response.write("{");
      return;
    case "jwks-on-closed-port":
      response.end(configuration(`http://127.0.0.1:${closedPort}/jwks`));
      return;
    case "jwks-stream":
      if (rest === "/.well-known/openid-configuration") response.end(configuration(`${hostileOrigin}/stream/jwks`));
      else streamForever(response);
      return;
    default:
      response.writeHead(404).end();
  }
}

async function resolveHost(hostname: string): Promise<readonly string[]> {
  const count = (resolutions.get(hostname) ?? 0) + 1;
  resolutions.set(hostname, count);
  if (hostname === "localhost") return ["127.0.0.1"];
  if (hostname === "internal.weft.test") return ["10.0.0.7"];
  if (hostname === "metadata.weft.test") return ["93.184.215.14", "169.254.169.254"];
  if (hostname === "rebind.weft.test") return count === 1 ? ["93.184.215.14"] : ["127.0.0.1"];
  return (await lookup(hostname, { all: true })).map((entry) => entry.address);
}

beforeAll(async () => {
  hostile = createServer((request, response) => {
    const [, behaviour = "", ...rest] = (request.url ?? "").split("/");
    requested.push(request.url ?? "");
    answer(behaviour, `/${rest.join("/")}`, response);
  });
  hostile.on("connection", (socket) => {
    openConnections += 1;
    socket.on("close", () => {
      openConnections -= 1;
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileOrigin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  closedPort = await freePort();
  idp = await startTestIdentityProvider();
  const exempt = [idp.issuer, hostileOrigin, `http://127.0.0.1:${closedPort}`].map((url) => new URL(url).host);
  weft = await startTestPlatform({
    // The operator's escape hatch: these loopback ports stand for issuers on the operator's network.
    env: { WEFT_SANDBOX_EGRESS_ALLOW: exempt.join(","), WEFT_RATE_LIMIT_REGISTER: "10000" },
    resolveHost,
    timers,
  });
  owner = await createTestIdentity(weft, "owner@example.com");
  teamId = await createTeamWorkspace(weft, owner, "CI Inc");
  const created = await callRpc(
    weft.url,
    "projects.create",
    { name: "app", workspaceId: teamId },
    {
      token: owner.credential,
    },
  );
  projectId = (created.json as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await weft?.stop();
  await idp?.close();
  hostile?.closeAllConnections();
  await new Promise((resolve) => hostile?.close(resolve));
});

const nowSeconds = () => Math.floor(weft.clock.now().getTime() / 1000);

function createPolicy(input: Record<string, unknown>) {
  return callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: teamId,
      projectId,
      audience: "weft",
      subject: "repo:acme/*",
      scopes: ["deployments:write"],
      ...input,
    },
    { token: owner.credential },
  );
}

async function trust(issuer: string): Promise<void> {
  const created = await createPolicy({ issuer });
  if (created.status !== 200) throw new Error(created.text);
}

const signingKey = generateKeyPair("ES256");

/** A token any issuer could have signed: the platform reads `iss` first, and fetches that issuer's keys. */
async function tokenOf(issuer: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({
    iss: issuer,
    sub: "repo:acme/app:ref:refs/heads/main",
    aud: "weft",
    jti: randomUUID(),
    iat: nowSeconds(),
    exp: nowSeconds() + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", typ: "JWT" })
    .sign((await signingKey).privateKey);
}

function exchange(subjectToken: string) {
  return postTokenRequest(weft.url, { subjectToken, audience: projectId });
}

/** The description of a refused exchange, with the issuer's own address (which its tenant knows) taken out. */
async function refusalOf(issuer: string): Promise<string> {
  const response = await exchange(await tokenOf(issuer));
  expect(response.status).toBe(400);
  expect(response.body.error).toBe("invalid_request");
  return String(response.body.error_description).replaceAll(issuer, "{issuer}");
}

const countPolicies = async () => (await weft.database.db.select().from(federationPolicies)).length;
const countCredentials = async () => (await weft.database.db.select().from(credentials)).length;

describe("hostile tenant: a federation issuer on the platform's own network", () => {
  it.each([
    ["a loopback address", "http://127.0.0.1:5432", /127\.0\.0\.1 is a loopback address/],
    ["loopback by name", "http://localhost:6379", /localhost \(127\.0\.0\.1\) is a loopback address/],
    ["the IPv6 loopback", "http://[::1]:8080", /::1 is a loopback address/],
    ["a private address", "https://10.1.2.3", /10\.1\.2\.3 is a private address/],
    ["the metadata service", "https://169.254.169.254/latest", /169\.254\.169\.254 is a link-local address/],
    ["a name that resolves to a private address", "https://internal.weft.test", /\(10\.0\.0\.7\) is a private/],
    ["a name with one link-local address among public ones", "https://metadata.weft.test", /link-local/],
  ])("is refused at creation when it is %s, naming the issuer", async (_what, issuer, reason) => {
    const before = await countPolicies();
    const refused = await createPolicy({ issuer });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: [{ path: ["issuer"], message: expect.stringMatching(reason) }] },
    });
    expect(await countPolicies()).toBe(before);
  });

  it("is refused at the fetch when its name resolves to loopback by then (DNS rebinding)", async () => {
    await trust("https://rebind.weft.test");
    const description = await refusalOf("https://rebind.weft.test");
    expect(description).toMatch(/rebind\.weft\.test \(127\.0\.0\.1\) is a loopback address/);
  });

  it("tells a closed port from an open one, or from any answer, in nothing", async () => {
    const issuers = [
      `http://127.0.0.1:${closedPort}`,
      `${hostileOrigin}/not-found`,
      `${hostileOrigin}/not-json`,
      `${hostileOrigin}/other-issuer`,
    ];
    for (const issuer of issuers) await trust(issuer);
    const descriptions = [];
    for (const issuer of issuers) descriptions.push(await refusalOf(issuer));
    expect(new Set(descriptions).size).toBe(1);
    expect(descriptions[0]).toMatch(/OpenID configuration could not be used/);
    expect(descriptions[0]).not.toMatch(/answered|fetch failed|ECONNREFUSED|refused|JSON\b.*not/);
  });

  it("tells a key set on a closed port from one that streams in nothing", async () => {
    const issuers = [`${hostileOrigin}/jwks-on-closed-port`, `${hostileOrigin}/jwks-stream`];
    for (const issuer of issuers) await trust(issuer);
    const descriptions = [];
    for (const issuer of issuers) {
      const description = await refusalOf(issuer);
      descriptions.push(
        description
          .replace(`http://127.0.0.1:${closedPort}/jwks`, "{jwks}")
          .replace(`${hostileOrigin}/stream/jwks`, "{jwks}"),
      );
    }
    expect(new Set(descriptions).size).toBe(1);
    expect(descriptions[0]).toMatch(/JWKS could not be used/);
  });

  it("answers 400 to exchanges against an issuer that streams without end, and lets go of it", async () => {
    const issuer = `${hostileOrigin}/stream`;
    await trust(issuer);
    const tokens = await Promise.all(Array.from({ length: 8 }, () => tokenOf(issuer)));
    const before = await countCredentials();
    const exchanges = tokens.map((token) => exchange(token));
    const health = await fetch(`${weft.url}/healthz`);
    expect(health.status).toBe(200);
    for (const response of await Promise.all(exchanges)) {
      expect(response.status).toBe(400);
      expect(response.body.error).toBe("invalid_request");
    }
    expect(await countCredentials()).toBe(before);
    await vi.waitFor(() => expect(openConnections).toBe(0), { timeout: 10_000 });
  });

  it("answers 400 when an issuer sends a byte and then nothing, once the deadline passes", async () => {
    const issuer = `${hostileOrigin}/trickle`;
    await trust(issuer);
    const pending = exchange(await tokenOf(issuer));
    await vi.waitFor(() => expect(requested).toContain("/trickle/.well-known/openid-configuration"), {
      timeout: 10_000,
    });
    timers.fireAll();
    const response = await pending;
    expect(response.status).toBe(400);
    expect(response.body.error).toBe("invalid_request");
    await vi.waitFor(() => expect(openConnections).toBe(0), { timeout: 10_000 });
  });
});

describe("hostile tenant: federation policies that pin no owner", () => {
  it.each([
    ["a subject of * alone", { subject: "*" }, ["subject"]],
    ["a subject of wildcards alone", { subject: "***" }, ["subject"]],
    ["a claim of * alone", { subject: undefined, claims: { repository_owner: "*" } }, ["claims", "repository_owner"]],
    ["* beside a pinned claim", { subject: "*", claims: { repository_owner: "acme" } }, ["subject"]],
  ])("refuses %s, naming the field", async (_what, input, path) => {
    const before = await countPolicies();
    const refused = await createPolicy({ issuer: idp.issuer, ...input });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: [{ path, message: expect.stringMatching(/literal part that pins the owner/) }] },
    });
    expect(await countPolicies()).toBe(before);
  });
});

describe("hostile tenant: subject tokens that live long or can be replayed", () => {
  const subject = "repo:acme/tokens:ref:refs/heads/main";
  const idpToken = (claims: Record<string, unknown>) =>
    idp.sign(
      { iss: idp.issuer, sub: subject, aud: "weft", iat: nowSeconds(), exp: nowSeconds() + 300, ...claims },
      { typ: "JWT" },
    );

  beforeAll(async () => {
    const created = await createPolicy({ issuer: idp.issuer, subject: "repo:acme/tokens:*" });
    if (created.status !== 200) throw new Error(created.text);
  });

  it("refuses a token without jti", async () => {
    const before = await countCredentials();
    const refused = await exchange(await idpToken({}));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "invalid_request", error_description: "The JWT jti claim is missing." });
    expect(await countCredentials()).toBe(before);
  });

  it("spends a jti once", async () => {
    const token = await idpToken({ jti: randomUUID() });
    expect((await exchange(token)).status).toBe(200);
    const replayed = await exchange(token);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error_description).toMatch(/already been used/);
  });

  it("refuses a token that expires more than 24 hours ahead, and takes one within them", async () => {
    const tenYears = await exchange(await idpToken({ jti: randomUUID(), exp: nowSeconds() + 10 * 365 * 86400 }));
    expect(tenYears.status).toBe(400);
    expect(tenYears.body.error_description).toMatch(/exp claim is more than 24 hours ahead/);
    const aDayAndASecond = await exchange(await idpToken({ jti: randomUUID(), exp: nowSeconds() + 86401 }));
    expect(aDayAndASecond.status).toBe(400);
    const aDay = await exchange(await idpToken({ jti: randomUUID(), exp: nowSeconds() + 86400 }));
    expect(aDay.status).toBe(200);
  });
});

describe("the README's federation policies", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("### OIDC federation"), readme.indexOf("### MCP clients"));
  const examples = [...section.matchAll(/createFederationPolicy[\s\S]*?-d '(\{"json": [^']*\})'/g)].map((match) =>
    String(match[1]),
  );

  it("pin the repository owner on GitHub Actions and on GitLab CI", () => {
    const policies = examples.map((text) => (JSON.parse(text) as { json: Record<string, unknown> }).json);
    expect(policies).toContainEqual(
      expect.objectContaining({
        issuer: "https://token.actions.githubusercontent.com",
        claims: expect.objectContaining({ repository_owner: expect.stringMatching(/^[^*]+$/) }),
      }),
    );
    expect(policies).toContainEqual(
      expect.objectContaining({
        issuer: "https://gitlab.com",
        claims: expect.objectContaining({ namespace_path: expect.stringMatching(/^[^*]+$/) }),
      }),
    );
  });

  it("are accepted as written", async () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const text of examples) {
      const { json } = JSON.parse(text.replaceAll("wsp_01…", teamId).replaceAll("prj_01…", projectId)) as {
        json: unknown;
      };
      const created = await callRpc(weft.url, "access.createFederationPolicy", json, { token: owner.credential });
      expect(created.status, created.text).toBe(200);
    }
  });
});
