import { randomUUID } from "node:crypto";
import {
  assertionRevokedEvent,
  idJagClaimsFor,
  idJagRegistration,
  logoutTokenPlatformEnv,
  postJson,
  postLogoutToken,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentityProvider,
  trustedIssuersEnv,
  trustingTestPlatform,
  whoAmI,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheLifetimeMs } from "../src/auth/jwks-cache.ts";
import { accounts, credentials, usedAssertionIds } from "../src/db/schema/index.ts";
import { startPlatform } from "../src/platform.ts";
import { createLogger } from "../src/shared/logger.ts";

let untrusted: TestIdentityProvider;
const platform = trustingTestPlatform({ env: logoutTokenPlatformEnv });

beforeAll(async () => {
  untrusted = await startTestIdentityProvider();
});

afterAll(async () => {
  await untrusted.close();
});

function nowSeconds(): number {
  return Math.floor(platform.weft.clock.now().getTime() / 1000);
}

function idJagClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const subject = { sub: "user-1", email: "ada@example.com" };
  return idJagClaimsFor(platform.idp, platform.weft.url, platform.weft.clock.now(), subject, overrides);
}

function withoutClaim(claim: string): Record<string, unknown> {
  const claims = idJagClaims();
  delete claims[claim];
  return claims;
}

function register(assertion: string) {
  return postJson(`${platform.weft.url}/agent/auth`, idJagRegistration(assertion));
}

async function expectRefused(assertion: string, error: string) {
  const before = await platform.weft.database.db.select().from(credentials);
  const response = await register(assertion);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ error, error_description: expect.any(String) });
  expect(await platform.weft.database.db.select().from(credentials)).toHaveLength(before.length);
}

function logoutClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: platform.idp.issuer,
    sub: "user-1",
    aud: platform.weft.url,
    jti: randomUUID(),
    iat: nowSeconds(),
    exp: nowSeconds() + 120,
    events: { [assertionRevokedEvent]: {} },
    ...overrides,
  };
}

describe("ID-JAG registration", () => {
  it("issues a credential at once, creates the account, and records the delegation", async () => {
    const response = await register(
      await platform.idp.sign(idJagClaims({ sub: "user-new", email: "New.Person@example.com" })),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      registration_id: expect.stringMatching(/^reg_/),
      registration_type: "agent-provider",
      credential_type: "api_key",
      credential: expect.stringMatching(/^weft_/),
      credential_expires: new Date(platform.weft.clock.now().getTime() + 30 * 24 * 3600 * 1000).toISOString(),
      scopes: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
    });
    const me = await whoAmI(platform.weft.url, response.body.credential as string);
    expect(me.body).toMatchObject({ email: "new.person@example.com" });
    const [stored] = await platform.weft.database.db
      .select()
      .from(credentials)
      .where(eq(credentials.registrationId, response.body.registration_id as string));
    expect(stored).toMatchObject({ issuer: platform.idp.issuer, subject: "user-new" });
  });

  it("reuses the account of a known email", async () => {
    await register(await platform.idp.sign(idJagClaims({ email: "repeat@example.com" })));
    await register(await platform.idp.sign(idJagClaims({ email: "repeat@example.com" })));
    expect(
      await platform.weft.database.db.select().from(accounts).where(eq(accounts.email, "repeat@example.com")),
    ).toHaveLength(1);
  });

  it("grants at most the scopes of a scope claim", async () => {
    const response = await register(await platform.idp.sign(idJagClaims({ scope: "projects:read admin:everything" })));
    expect(response.body.scopes).toEqual(["projects:read"]);
    await expectRefused(await platform.idp.sign(idJagClaims({ scope: "admin:everything" })), "invalid_assertion");
  });

  it("accepts typ case-insensitively with an optional application/ prefix", async () => {
    expect(
      (await register(await platform.idp.sign(idJagClaims(), { typ: "application/OAUTH-ID-JAG+JWT" }))).status,
    ).toBe(201);
  });

  it("detects replay of a jti, recording it only once every other check passed", async () => {
    const jti = randomUUID();
    await expectRefused(
      await platform.idp.sign(idJagClaims({ jti, aud: "https://elsewhere.example.com" })),
      "invalid_assertion",
    );
    await expectRefused(await platform.idp.sign(idJagClaims({ jti, client_id: "other" })), "invalid_client_id");
    const first = await platform.idp.sign(idJagClaims({ jti }));
    expect((await register(first)).status).toBe(201);
    await expectRefused(first, "replay_detected");
    await expectRefused(await platform.idp.sign(idJagClaims({ jti })), "replay_detected");
    const recorded = await platform.weft.database.db
      .select()
      .from(usedAssertionIds)
      .where(eq(usedAssertionIds.jti, jti));
    expect(recorded).toHaveLength(1);
  });

  it("refuses an untrusted issuer with issuer_not_enabled without fetching its keys", async () => {
    await expectRefused(await untrusted.sign(idJagClaims({ iss: untrusted.issuer })), "issuer_not_enabled");
    expect(untrusted.jwksFetches()).toBe(0);
  });

  it("refuses an untrusted client and an assertion without a verified email", async () => {
    await expectRefused(await platform.idp.sign(idJagClaims({ client_id: "someone-else" })), "invalid_client_id");
    await expectRefused(await platform.idp.sign(idJagClaims({ email_verified: false })), "missing_verified_email");
    await expectRefused(await platform.idp.sign(idJagClaims({ email_verified: "true" })), "missing_verified_email");
    await expectRefused(await platform.idp.sign(withoutClaim("email")), "missing_verified_email");
  });

  it("refuses every other verification failure with invalid_assertion", async () => {
    const forged = await untrusted.sign(idJagClaims());
    await expectRefused(forged, "invalid_assertion");
    await expectRefused(
      await platform.idp.sign(idJagClaims({ aud: "https://elsewhere.example.com" })),
      "invalid_assertion",
    );
    await expectRefused(
      await platform.idp.sign(idJagClaims({ aud: [platform.weft.url, "https://elsewhere.example.com"] })),
      "invalid_assertion",
    );
    await expectRefused(await platform.idp.sign(idJagClaims(), { typ: "JWT" }), "invalid_assertion");
    await expectRefused(await platform.idp.sign(idJagClaims(), { typ: "logout+jwt" }), "invalid_assertion");
    for (const claim of ["sub", "aud", "client_id", "jti", "iat", "exp"]) {
      await expectRefused(await platform.idp.sign(withoutClaim(claim)), "invalid_assertion");
    }
    await expectRefused("not-a-jwt", "invalid_assertion");
  });

  it("accepts an aud array holding exactly this server", async () => {
    expect((await register(await platform.idp.sign(idJagClaims({ aud: [platform.weft.url] })))).status).toBe(201);
  });

  it("refuses alg none and HMAC", async () => {
    const header = base64url.encode(JSON.stringify({ alg: "none", typ: "oauth-id-jag+jwt" }));
    const payload = base64url.encode(JSON.stringify(idJagClaims()));
    await expectRefused(`${header}.${payload}.`, "invalid_assertion");
    const hmac = await new SignJWT(idJagClaims())
      .setProtectedHeader({ alg: "HS256", typ: "oauth-id-jag+jwt" })
      .sign(new TextEncoder().encode("a-shared-secret-of-sufficient-length!!"));
    await expectRefused(hmac, "invalid_assertion");
  });

  it("checks exp on both sides of the boundary", async () => {
    const exp = nowSeconds() + 10;
    const valid = await platform.idp.sign(idJagClaims({ exp }));
    const expiring = await platform.idp.sign(idJagClaims({ exp }));
    platform.weft.clock.advance(9_999);
    expect((await register(valid)).status).toBe(201);
    platform.weft.clock.advance(1);
    await expectRefused(expiring, "invalid_assertion");
  });

  it("accepts iat up to 60 s ahead and not more", async () => {
    expect((await register(await platform.idp.sign(idJagClaims({ iat: nowSeconds() + 60 })))).status).toBe(201);
    await expectRefused(await platform.idp.sign(idJagClaims({ iat: nowSeconds() + 61 })), "invalid_assertion");
  });

  it("refetches the JWKS once for an unknown kid after the cooldown (key rotation)", async () => {
    await register(await platform.idp.sign(idJagClaims()));
    const fetchesBefore = platform.idp.jwksFetches();
    await platform.idp.rotateKey();
    platform.weft.clock.advance(31_000);
    expect((await register(await platform.idp.sign(idJagClaims()))).status).toBe(201);
    expect(platform.idp.jwksFetches()).toBe(fetchesBefore + 1);
    // A kid nobody published does not cause another fetch within the cooldown.
    await expectRefused(await platform.idp.sign(idJagClaims(), { kid: "no-such-key" }), "invalid_assertion");
    expect(platform.idp.jwksFetches()).toBe(fetchesBefore + 1);
  });
});

describe("ID-JAG across processes and JWKS caching", () => {
  it("keeps a jti single-use across processes sharing the database", async () => {
    const second = await startPlatform(
      { ...platform.weft.platform.context.config, port: 0 },
      { clock: platform.weft.clock, database: platform.weft.database, logger: createLogger({ level: "silent" }) },
    );
    try {
      const token = await platform.idp.sign(idJagClaims());
      expect((await register(token)).status).toBe(201);
      const replayed = await postJson(`${second.listenUrl}/agent/auth`, idJagRegistration(token));
      expect(replayed).toMatchObject({ status: 400, body: { error: "replay_detected" } });
    } finally {
      await second.stop();
    }
  });

  it("honours Cache-Control max-age within 10 minutes and 24 hours", () => {
    const minute = 60 * 1000;
    expect(cacheLifetimeMs("public, max-age=1800")).toBe(30 * minute);
    expect(cacheLifetimeMs("max-age=5")).toBe(10 * minute);
    expect(cacheLifetimeMs("max-age=604800")).toBe(24 * 60 * minute);
    expect(cacheLifetimeMs(null)).toBe(60 * minute);
  });

  it("serves keys from the cache until max-age passes", async () => {
    const cached = await startTestIdentityProvider({ cacheControl: "max-age=900" });
    const platform = await startTestPlatform({
      env: { WEFT_TRUSTED_ISSUERS: trustedIssuersEnv(cached), WEFT_RATE_LIMIT_REGISTER: "10000" },
    });
    try {
      const sign = () =>
        cached.sign({
          ...idJagClaims({ iss: cached.issuer, client_id: cached.clientId, aud: platform.url }),
          iat: Math.floor(platform.clock.now().getTime() / 1000),
          exp: Math.floor(platform.clock.now().getTime() / 1000) + 300,
        });
      const registerThere = async () =>
        (await postJson(`${platform.url}/agent/auth`, idJagRegistration(await sign()))).status;
      expect(await registerThere()).toBe(201);
      expect(await registerThere()).toBe(201);
      expect(cached.jwksFetches()).toBe(1);
      platform.clock.advance(900 * 1000 - 1);
      expect(await registerThere()).toBe(201);
      expect(cached.jwksFetches()).toBe(1);
      platform.clock.advance(1);
      expect(await registerThere()).toBe(201);
      expect(cached.jwksFetches()).toBe(2);
    } finally {
      await platform.stop();
      await cached.close();
    }
  });
});

describe("logout-token revocation", () => {
  it("revokes every credential of the (iss, sub), and only those", async () => {
    const ofUser = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await register(
        await platform.idp.sign(idJagClaims({ sub: "leaver", email: "leaver@example.com" })),
      );
      ofUser.push(response.body.credential as string);
    }
    const other = (await register(await platform.idp.sign(idJagClaims({ sub: "stayer", email: "stayer@example.com" }))))
      .body.credential as string;
    const announced: string[] = [];
    const unsubscribe = platform.weft.platform.context.credentialRevocations.subscribe((ids) => announced.push(...ids));
    const token = await platform.idp.sign(logoutClaims({ sub: "leaver" }), { typ: "logout+jwt" });
    expect(await postLogoutToken(platform.weft.url, token)).toEqual({ status: 200, body: {} });
    unsubscribe();
    // Credential caches in this process hear of each revoked credential (from this process at once,
    // and again through the database's notification, as every other process does).
    expect(new Set(announced).size).toBe(3);
    for (const credential of ofUser) expect((await whoAmI(platform.weft.url, credential)).status).toBe(401);
    expect((await whoAmI(platform.weft.url, other)).status).toBe(200);

    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "replay_detected" },
    });
  });

  it("refuses invalid logout tokens and revokes nothing", async () => {
    const credential = (
      await register(await platform.idp.sign(idJagClaims({ sub: "keeper", email: "keeper@example.com" })))
    ).body.credential as string;
    const cases: [Promise<string>, string][] = [
      [platform.idp.sign(logoutClaims({ sub: "keeper" })), "invalid_assertion"],
      [platform.idp.sign(logoutClaims({ sub: "keeper", events: {} }), { typ: "logout+jwt" }), "invalid_assertion"],
      [platform.idp.sign(logoutClaims({ sub: "keeper", nonce: "n" }), { typ: "logout+jwt" }), "invalid_assertion"],
      [
        platform.idp.sign(logoutClaims({ sub: "keeper", aud: "https://elsewhere.example.com" }), { typ: "logout+jwt" }),
        "invalid_assertion",
      ],
      [
        platform.idp.sign(logoutClaims({ sub: "keeper", exp: nowSeconds() - 1 }), { typ: "logout+jwt" }),
        "invalid_assertion",
      ],
      [
        untrusted.sign(logoutClaims({ sub: "keeper", iss: untrusted.issuer }), { typ: "logout+jwt" }),
        "issuer_not_enabled",
      ],
      [untrusted.sign(logoutClaims({ sub: "keeper" }), { typ: "logout+jwt" }), "invalid_assertion"],
    ];
    for (const [token, error] of cases) {
      expect(await postLogoutToken(platform.weft.url, await token)).toMatchObject({ status: 400, body: { error } });
    }
    const noSub = logoutClaims();
    delete noSub.sub;
    expect(
      await postLogoutToken(platform.weft.url, await platform.idp.sign(noSub, { typ: "logout+jwt" })),
    ).toMatchObject({
      status: 400,
      body: { error: "invalid_assertion" },
    });
    expect(await postLogoutToken(platform.weft.url, "")).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(200);
  });

  it("refuses a logout token sent to the registration endpoint", async () => {
    await expectRefused(await platform.idp.sign(logoutClaims(), { typ: "logout+jwt" }), "invalid_assertion");
  });
});
