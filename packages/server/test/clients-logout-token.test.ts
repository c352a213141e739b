import { randomUUID } from "node:crypto";
import {
  assertionRevokedEvent,
  idJagClaimsFor,
  idJagRegistration,
  logoutTokenPlatformEnv,
  postJson,
  postLogoutToken,
  trustingTestPlatform,
  whoAmI,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { usedAssertionIds } from "../src/db/schema/index.ts";

const platform = trustingTestPlatform({ env: logoutTokenPlatformEnv });

function nowSeconds(): number {
  return Math.floor(platform.weft.clock.now().getTime() / 1000);
}

/** A credential of `sub` at the identity provider, registered with an ID-JAG. */
async function credentialOf(sub: string): Promise<string> {
  const subject = { sub, email: `${sub}@example.com` };
  const assertion = await platform.idp.sign(
    idJagClaimsFor(platform.idp, platform.weft.url, platform.weft.clock.now(), subject),
  );
  const response = await postJson(`${platform.weft.url}/agent/auth`, idJagRegistration(assertion));
  expect(response.status).toBe(201);
  return response.body.credential as string;
}

/** Exactly the claims the auth.md reference provider puts in a logout token: no `exp`. */
function referenceLogoutClaims(sub: string, iat: number = nowSeconds()) {
  return {
    iss: platform.idp.issuer,
    sub,
    aud: platform.weft.url,
    iat,
    jti: randomUUID(),
    events: { [assertionRevokedEvent]: {} },
  };
}

let sub: string;
let credential: string;

beforeEach(async () => {
  sub = `user-${randomUUID()}`;
  credential = await credentialOf(sub);
});

describe("a logout token without exp", () => {
  it("revokes the delegation when issued within the last 5 minutes, and remembers its jti that long", async () => {
    const claims = referenceLogoutClaims(sub, nowSeconds() - 299);
    const token = await platform.idp.sign(claims, { typ: "logout+jwt" });
    expect(await postLogoutToken(platform.weft.url, token)).toEqual({ status: 200, body: {} });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(401);

    const [kept] = await platform.weft.database.db
      .select()
      .from(usedAssertionIds)
      .where(eq(usedAssertionIds.jti, claims.jti));
    // iat + 5 minutes, plus the minute of clock skew every used assertion id is kept beyond its expiry.
    expect(kept?.expiresAt).toEqual(new Date((claims.iat + 300 + 60) * 1000));
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "replay_detected" },
    });
  });

  it("refuses a replay for as long as the token would verify", async () => {
    const token = await platform.idp.sign(referenceLogoutClaims(sub), { typ: "logout+jwt" });
    expect((await postLogoutToken(platform.weft.url, token)).status).toBe(200);
    platform.weft.clock.advance(300 * 1000);
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "replay_detected" },
    });
    platform.weft.clock.advance(1000);
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "invalid_assertion", error_description: expect.stringContaining("more than 5 minutes ago") },
    });
  });

  it("refuses one issued more than 5 minutes ago, revoking nothing", async () => {
    const token = await platform.idp.sign(referenceLogoutClaims(sub, nowSeconds() - 301), { typ: "logout+jwt" });
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "invalid_assertion", error_description: expect.stringContaining("more than 5 minutes ago") },
    });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(200);
  });

  it("refuses one issued in the future beyond the allowed clock skew, revoking nothing", async () => {
    const token = await platform.idp.sign(referenceLogoutClaims(sub, nowSeconds() + 61), { typ: "logout+jwt" });
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "invalid_assertion", error_description: "The JWT iat claim is in the future." },
    });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(200);
  });

  it("accepts one issued within the allowed clock skew ahead of us", async () => {
    const token = await platform.idp.sign(referenceLogoutClaims(sub, nowSeconds() + 60), { typ: "logout+jwt" });
    expect(await postLogoutToken(platform.weft.url, token)).toEqual({ status: 200, body: {} });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(401);
  });
});

describe("a logout token with exp", () => {
  it("is honoured until its exp even when issued long ago", async () => {
    const token = await platform.idp.sign(
      { ...referenceLogoutClaims(sub, nowSeconds() - 3600), exp: nowSeconds() + 10 },
      { typ: "logout+jwt" },
    );
    expect(await postLogoutToken(platform.weft.url, token)).toEqual({ status: 200, body: {} });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(401);
  });

  it("is refused once its exp has passed, even when issued a moment ago", async () => {
    const token = await platform.idp.sign(
      { ...referenceLogoutClaims(sub, nowSeconds() - 10), exp: nowSeconds() - 1 },
      { typ: "logout+jwt" },
    );
    expect(await postLogoutToken(platform.weft.url, token)).toMatchObject({
      status: 400,
      body: { error: "invalid_assertion", error_description: "The JWT has expired." },
    });
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(200);
  });
});

describe("/auth.md", () => {
  it("states the logout-token rule", async () => {
    const guide = await (await fetch(`${platform.weft.url}/auth.md`)).text();
    expect(guide).toContain("`iat`, a unique `jti` and `events`");
    expect(guide).toContain(
      "With an `exp`, it is accepted until then. Without one, it is accepted for\n5 minutes after its `iat`",
    );
  });
});
