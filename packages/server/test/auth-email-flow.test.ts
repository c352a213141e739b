import {
  claimCodeOf,
  csrfTokenOf,
  decide,
  emailRegistration,
  emailSequence,
  getPage,
  mailingTestPlatform,
  postJson,
  submitDecision,
  unthrottledSignUpEnv,
  whoAmI,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { accounts, auditEvents, credentials, registrations } from "../src/db/schema/index.ts";

const minute = 60 * 1000;
const platform = mailingTestPlatform({ env: { ...unthrottledSignUpEnv, WEFT_RATE_LIMIT_REVOKE: "10000" } });

const nextEmail = emailSequence("person");

interface Registered {
  email: string;
  registrationId: string;
  claimToken: string;
  link: string;
}

async function register(email = nextEmail()): Promise<Registered> {
  const response = await postJson(`${platform.weft.url}/agent/auth`, emailRegistration(email), {
    "user-agent": "TestAgent/1.0",
  });
  expect(response.status).toBe(201);
  return {
    email,
    registrationId: response.body.registration_id as string,
    claimToken: response.body.claim_token as string,
    link: platform.smtp.approvalLinkFor(email),
  };
}

async function approve(registered: Registered): Promise<string> {
  const page = await decide(registered.link, "approve");
  expect(page.status).toBe(200);
  return claimCodeOf(page.html);
}

function claim(claimToken: string, otp: string) {
  return postJson(`${platform.weft.url}/agent/auth/claim/complete`, { claim_token: claimToken, otp });
}

async function statusOf(registrationId: string) {
  const [row] = await platform.weft.database.db
    .select()
    .from(registrations)
    .where(eq(registrations.id, registrationId));
  return row;
}

async function actionsOn(targetId: string): Promise<string[]> {
  const events = await platform.weft.database.db
    .select({ action: auditEvents.action })
    .from(auditEvents)
    .where(eq(auditEvents.targetId, targetId))
    .orderBy(auditEvents.id);
  return events.map((event) => event.action);
}

function wrongCode(code: string): string {
  return code === "000000" ? "000001" : "000000";
}

describe("verified-email registration", () => {
  it("answers 201 with a claim token and no credential, and mails one approval link", async () => {
    const email = nextEmail();
    const response = await postJson(`${platform.weft.url}/agent/auth`, emailRegistration(email));
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      registration_id: expect.stringMatching(/^reg_/),
      registration_type: "email-verification",
      claim_url: `${platform.weft.url}/agent/auth/claim/${response.body.registration_id}`,
      claim_token: expect.stringMatching(/^clm_[A-Za-z0-9_-]{43}$/),
      claim_token_expires: new Date(platform.weft.clock.now().getTime() + 30 * minute).toISOString(),
      post_claim_scopes: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
    });
    expect(response.body).not.toHaveProperty("credential");
    expect(platform.smtp.approvalLinkFor(email)).toMatch(
      new RegExp(`^${platform.weft.url}/agent/auth/approve\\?token=apv_`),
    );
    const row = await statusOf(response.body.registration_id as string);
    expect(row?.status).toBe("pending");
    expect(JSON.stringify(row)).not.toContain(response.body.claim_token as string);
    // No account exists until the person approves.
    expect(await platform.weft.database.db.select().from(accounts).where(eq(accounts.email, email))).toEqual([]);
  });

  it("refuses an address that is not an email with invalid_request and sends nothing", async () => {
    const before = platform.smtp.received.length;
    for (const assertion of ["not-an-email", "a@b", "two@@example.com", "spaces in@example.com"]) {
      const response = await postJson(`${platform.weft.url}/agent/auth`, emailRegistration(assertion));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: "invalid_request", error_description: expect.any(String) });
    }
    expect(platform.smtp.received.length).toBe(before);
  });
});

describe("approval page", () => {
  it("shows the agent, email, scopes and expiry on GET and changes nothing", async () => {
    const registered = await register();
    const page = await getPage(registered.link);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain("TestAgent/1.0");
    expect(page.html).toContain(registered.email);
    expect(page.html).toContain("projects:write");
    expect(page.html).toMatch(/<form method="post">/);
    expect(page.html).toContain('name="decision" value="approve"');
    expect(page.html).toContain('name="decision" value="deny"');
    expect(page.html).not.toContain("<script");
    await getPage(registered.link);
    expect((await statusOf(registered.registrationId))?.status).toBe("pending");
  });

  it("escapes what the agent says about itself", async () => {
    const email = nextEmail();
    await postJson(`${platform.weft.url}/agent/auth`, emailRegistration(email), {
      "user-agent": '<script>alert("x")</script>',
    });
    const page = await getPage(platform.smtp.approvalLinkFor(email));
    expect(page.html).not.toContain("<script>");
    expect(page.html).toContain("&lt;script&gt;");
  });

  it("refuses a POST without a valid CSRF token and changes nothing", async () => {
    const registered = await register();
    const missing = await submitDecision(registered.link, { decision: "approve" });
    const forged = await submitDecision(registered.link, {
      decision: "approve",
      csrf: `9999999999999.${"A".repeat(43)}`,
    });
    expect(missing.status).toBe(403);
    expect(forged.status).toBe(403);
    // A token of another link is refused too.
    const other = await register();
    const othersToken = csrfTokenOf((await getPage(other.link)).html);
    expect((await submitDecision(registered.link, { decision: "approve", csrf: othersToken })).status).toBe(403);
    expect((await statusOf(registered.registrationId))?.status).toBe("pending");
  });

  it("refuses a POST whose form cannot be read (a multipart body without its boundary) and changes nothing", async () => {
    const registered = await register();
    const csrf = csrfTokenOf((await getPage(registered.link)).html);
    const unreadable = await fetch(registered.link, {
      method: "POST",
      headers: { "content-type": "multipart/form-data" },
      body: new URLSearchParams({ decision: "approve", csrf }),
    });
    expect(unreadable.status).toBe(400);
    expect(await unreadable.text()).toContain("This form could not be read");
    expect((await statusOf(registered.registrationId))?.status).toBe("pending");
  });

  it("approves: creates the account and workspace, shows a 6-digit code and a Revoke button", async () => {
    const registered = await register();
    const page = await decide(registered.link, "approve");
    expect(page.status).toBe(200);
    expect(claimCodeOf(page.html)).toMatch(/^\d{6}$/);
    expect(page.html).toContain('name="decision" value="revoke"');
    expect(page.headers.get("cache-control")).toBe("no-store");
    const row = await statusOf(registered.registrationId);
    expect(row?.status).toBe("approved");
    const [account] = await platform.weft.database.db
      .select()
      .from(accounts)
      .where(eq(accounts.email, registered.email));
    expect(account?.id).toBe(row?.accountId);
    // Seen again, the link does not show the code a second time.
    const again = await getPage(registered.link);
    expect(again.html).not.toContain('id="claim-code"');
    expect(again.html).toContain("Already approved");
  });

  it("denies: the registration can no longer be approved or claimed", async () => {
    const registered = await register();
    const page = await decide(registered.link, "deny");
    expect(page.html).toContain("Request denied");
    expect((await statusOf(registered.registrationId))?.status).toBe("denied");
    expect(await actionsOn(registered.registrationId)).toEqual(["registration.created", "registration.denied"]);
    const reopened = await getPage(registered.link);
    expect(reopened.html).toContain("Request denied");
    expect(reopened.html).not.toContain('value="approve"');
    const claimed = await claim(registered.claimToken, "123456");
    expect(claimed).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("revokes an approval: the code no longer claims", async () => {
    const registered = await register();
    const code = await approve(registered);
    const page = await decide(registered.link, "revoke");
    expect(page.html).toContain("Approval revoked");
    expect((await statusOf(registered.registrationId))?.status).toBe("revoked");
    expect(await actionsOn(registered.registrationId)).toEqual([
      "registration.created",
      "registration.approved",
      "registration.revoked",
    ]);
    expect(await claim(registered.claimToken, code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("revokes a request still awaiting approval", async () => {
    const registered = await register();
    const page = await decide(registered.link, "revoke");
    expect(page.html).toContain("Approval revoked");
    expect((await statusOf(registered.registrationId))?.status).toBe("revoked");
    expect((await getPage(registered.link)).html).not.toContain('value="approve"');
  });

  it("reuses the account and workspace when the same person approves again", async () => {
    const first = await register();
    await approve(first);
    const second = await register(first.email);
    await approve(second);
    expect(await platform.weft.database.db.select().from(accounts).where(eq(accounts.email, first.email))).toHaveLength(
      1,
    );
    expect((await statusOf(second.registrationId))?.accountId).toBe((await statusOf(first.registrationId))?.accountId);
  });

  it("shows a clear page for an unknown link, an expired link and a used link", async () => {
    const unknown = await getPage(`${platform.weft.url}/agent/auth/approve?token=apv_${"x".repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("Link not valid");

    const registered = await register();
    const csrf = csrfTokenOf((await getPage(registered.link)).html);
    platform.weft.clock.advance(30 * minute);
    const expired = await getPage(registered.link);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain("Link expired");
    const lateApproval = await submitDecision(registered.link, { csrf, decision: "approve" });
    expect(lateApproval.html).toContain("Link expired");
    expect((await statusOf(registered.registrationId))?.status).toBe("pending");

    const used = await register();
    const code = await approve(used);
    expect((await claim(used.claimToken, code)).status).toBe(200);
    const usedPage = await getPage(used.link);
    expect(usedPage.status).toBe(410);
    expect(usedPage.html).toContain("Link already used");
  });

  it("approves just before the link's 30 minutes end", async () => {
    const registered = await register();
    const page = await getPage(registered.link);
    platform.weft.clock.advance(30 * minute - 1);
    const approved = await submitDecision(registered.link, { csrf: csrfTokenOf(page.html), decision: "approve" });
    expect(approved.status).toBe(200);
    expect(claimCodeOf(approved.html)).toMatch(/^\d{6}$/);
  });
});

describe("claim", () => {
  it("issues a 30-day credential once for the right code and token, acting as the approving user", async () => {
    const registered = await register();
    const code = await approve(registered);
    const response = await claim(registered.claimToken, code);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      registration_id: registered.registrationId,
      status: "claimed",
      credential_type: "api_key",
      credential: expect.stringMatching(/^weft_[A-Za-z0-9_-]{43}$/),
      credential_expires: new Date(platform.weft.clock.now().getTime() + 30 * 24 * 60 * minute).toISOString(),
      scopes: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
    });
    const credential = response.body.credential as string;
    expect((await whoAmI(platform.weft.url, credential)).body).toMatchObject({
      email: registered.email,
      workspaces: [{ id: expect.stringMatching(/^wsp_/), name: expect.any(String), role: "owner" }],
    });
    expect((await statusOf(registered.registrationId))?.status).toBe("claimed");

    const again = await claim(registered.claimToken, code);
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(again.body).not.toHaveProperty("credential");

    const events = await platform.weft.database.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.targetId, registered.registrationId));
    expect(events.map((event) => event.action)).toEqual([
      "registration.created",
      "registration.approved",
      "registration.claimed",
    ]);
  });

  it("refuses an unknown claim token and a registration not yet approved", async () => {
    expect(await claim(`clm_${"a".repeat(43)}`, "123456")).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
    const registered = await register();
    expect(await claim(registered.claimToken, "123456")).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
    expect((await statusOf(registered.registrationId))?.status).toBe("pending");
  });

  it("counts attempts: four wrong codes then the right one works", async () => {
    const registered = await register();
    const code = await approve(registered);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      expect(await claim(registered.claimToken, wrongCode(code))).toMatchObject({
        status: 400,
        body: { error: "invalid_grant" },
      });
    }
    expect((await claim(registered.claimToken, code)).status).toBe(200);
  });

  it("refuses the sixth attempt even with the right code", async () => {
    const registered = await register();
    const code = await approve(registered);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await claim(registered.claimToken, wrongCode(code))).status).toBe(400);
    }
    expect(await claim(registered.claimToken, code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await statusOf(registered.registrationId))?.status).toBe("approved");
    const issued = await platform.weft.database.db
      .select()
      .from(credentials)
      .where(eq(credentials.registrationId, registered.registrationId));
    expect(issued).toEqual([]);
  });

  it("accepts the code until 10 minutes after approval, not at 10 minutes", async () => {
    const early = await register();
    const earlyCode = await approve(early);
    platform.weft.clock.advance(10 * minute - 1);
    expect((await claim(early.claimToken, earlyCode)).status).toBe(200);

    const late = await register();
    const lateCode = await approve(late);
    platform.weft.clock.advance(10 * minute);
    expect(await claim(late.claimToken, lateCode)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await statusOf(late.registrationId))?.status).toBe("approved");
  });

  it("accepts the claim token until 30 minutes after registration, not at 30 minutes", async () => {
    const inTime = await register();
    platform.weft.clock.advance(25 * minute);
    const inTimeCode = await approve(inTime);
    platform.weft.clock.advance(5 * minute - 1);
    expect((await claim(inTime.claimToken, inTimeCode)).status).toBe(200);

    const tooLate = await register();
    platform.weft.clock.advance(25 * minute);
    const tooLateCode = await approve(tooLate);
    platform.weft.clock.advance(5 * minute);
    expect(await claim(tooLate.claimToken, tooLateCode)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
  });

  it("refuses malformed bodies with invalid_request", async () => {
    const url = `${platform.weft.url}/agent/auth/claim/complete`;
    for (const body of [
      {},
      { claim_token: "clm_x" },
      { otp: "123456" },
      { claim_token: "clm_x", otp: "12345" },
      { claim_token: 5, otp: "123456" },
    ]) {
      expect(await postJson(url, body)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    }
    expect(await postJson(url, "{not json")).toMatchObject({ status: 400, body: { error: "invalid_request" } });
  });
});

describe("credential lifetime and revocation", () => {
  async function claimedCredential(): Promise<{ credential: string; email: string }> {
    const registered = await register();
    const response = await claim(registered.claimToken, await approve(registered));
    return { credential: response.body.credential as string, email: registered.email };
  }

  it("works for 30 days from issue and not after", async () => {
    const { credential } = await claimedCredential();
    platform.weft.clock.advance(30 * 24 * 60 * minute - 1);
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(200);
    platform.weft.clock.advance(1);
    const expired = await whoAmI(platform.weft.url, credential);
    expect(expired).toMatchObject({ status: 401, body: { error: "invalid_token" } });
  });

  it("revokes a presented credential, answers 200 for an unknown one, and audits the revocation", async () => {
    const { credential } = await claimedCredential();
    const revoked = await postJson(`${platform.weft.url}/agent/auth/revoke`, { credential });
    expect(revoked.status).toBe(200);
    expect((await whoAmI(platform.weft.url, credential)).status).toBe(401);
    expect((await postJson(`${platform.weft.url}/agent/auth/revoke`, { credential })).status).toBe(200);
    expect((await postJson(`${platform.weft.url}/agent/auth/revoke`, { credential: "weft_unknown" })).status).toBe(200);
    const actions = (await platform.weft.database.db.select({ action: auditEvents.action }).from(auditEvents)).map(
      (event) => event.action,
    );
    expect(actions.filter((action) => action === "credential.revoked")).toHaveLength(1);
  });

  it("refuses a revoke request without a credential with invalid_request", async () => {
    expect(await postJson(`${platform.weft.url}/agent/auth/revoke`, {})).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });
    const plain = await fetch(`${platform.weft.url}/agent/auth/revoke`, { method: "POST", body: "weft_x" });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ error: "invalid_request" });
  });
});
