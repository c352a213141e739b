import type { Agent as AgentView } from "@weft/contract";
import {
  callRpc,
  capturedLogger,
  claimCodeOf,
  cookiesOf,
  csrfTokenOf,
  decide,
  emailRegistration,
  emailSequence,
  mailingTestPlatform,
  openEventStream,
  registerSecret,
  type StudioBrowserSession,
  setCookieHeader,
  signInToStudio,
  startTestPlatform,
  unthrottledSignUpEnv,
} from "@weft/testing";
import { count } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { registrations } from "../src/db/schema/index.ts";
import { accessRecheckMs } from "../src/rpc/event-stream-route.ts";
import { studioStartUpLine } from "../src/studio/studio-start-up-line.ts";

const log = capturedLogger("debug");
const platform = mailingTestPlatform({
  env: unthrottledSignUpEnv,
  logger: log.logger,
});

const nextEmail = emailSequence("studio");

function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${platform.weft.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

function readSession(cookie: string): Promise<Response> {
  return fetch(`${platform.weft.url}/studio/api/session`, { headers: { cookie } });
}

function studioCall(session: Pick<StudioBrowserSession, "cookie" | "csrfToken">, procedure: string, input: unknown) {
  return callRpc(`${platform.weft.url}/studio`, procedure, input, {
    headers: { cookie: session.cookie, "x-weft-csrf": session.csrfToken },
  });
}

/** Asks for the mail and approves it; returns the pending cookie and the code, not yet presented. */
async function approvedSignIn(email: string): Promise<{ pendingCookie: string; code: string }> {
  const started = await postJson("/studio/api/sign-in", { email });
  expect(started.status).toBe(202);
  const pending = cookiesOf(started).get("weft_studio_sign_in") ?? "";
  const approved = await decide(platform.smtp.approvalLinkFor(email), "approve");
  return { pendingCookie: `weft_studio_sign_in=${pending}`, code: claimCodeOf(approved.html) };
}

async function registrationCount(): Promise<number> {
  const [row] = await platform.weft.database.db.select({ n: count() }).from(registrations);
  return row?.n ?? 0;
}

async function studioAgents(session: StudioBrowserSession, status?: string): Promise<AgentView[]> {
  const listed = await studioCall(session, "agents.list", status === undefined ? {} : { status });
  expect(listed.status).toBe(200);
  return (listed.json as { results: AgentView[] }).results;
}

describe("signing in to Studio by mail", () => {
  it("asks for the mail, completes with the code from the approval page, and holds a session", async () => {
    const email = nextEmail();
    const started = await postJson("/studio/api/sign-in", { email });
    expect(started.status).toBe(202);
    const { expiresAt } = (await started.json()) as { expiresAt: string };
    expect(new Date(expiresAt).getTime()).toBe(platform.weft.clock.now().getTime() + 30 * 60 * 1000);
    const pendingHeader = setCookieHeader(started, "weft_studio_sign_in") ?? "";
    expect(pendingHeader).toMatch(/; Path=\/studio(;|$)/);
    expect(pendingHeader).toMatch(/; HttpOnly(;|$)/);
    expect(pendingHeader).toMatch(/; SameSite=Lax(;|$)/);
    expect(pendingHeader).not.toMatch(/; Secure/);
    expect(platform.smtp.received.findLast((mail) => mail.to.includes(email))?.raw).toContain("Weft Studio");

    const approved = await decide(platform.smtp.approvalLinkFor(email), "approve");
    const completed = await postJson(
      "/studio/api/sign-in/complete",
      { code: claimCodeOf(approved.html) },
      { cookie: `weft_studio_sign_in=${cookiesOf(started).get("weft_studio_sign_in")}` },
    );
    expect(completed.status).toBe(200);
    const body = (await completed.json()) as { email: string; csrfToken: string };
    expect(body.email).toBe(email);
    registerSecret(body.csrfToken);
    const sessionHeader = setCookieHeader(completed, "weft_studio_session") ?? "";
    expect(sessionHeader).toMatch(/; Path=\/studio(;|$)/);
    expect(sessionHeader).toMatch(/; HttpOnly(;|$)/);
    expect(sessionHeader).toMatch(/; SameSite=Lax(;|$)/);
    expect(sessionHeader).not.toMatch(/; Secure/);
    expect(setCookieHeader(completed, "weft_studio_sign_in")).toMatch(/Max-Age=0/);

    const cookie = `weft_studio_session=${cookiesOf(completed).get("weft_studio_session")}`;
    const read = await readSession(cookie);
    expect(read.status).toBe(200);
    const session = (await read.json()) as Record<string, string>;
    expect(session).toEqual({
      email,
      accountId: expect.stringMatching(/^acc_/),
      csrfToken: body.csrfToken,
      expiresAt: new Date(platform.weft.clock.now().getTime() + 12 * 60 * 60 * 1000).toISOString(),
    });

    const agents = await studioAgents({ cookie, csrfToken: body.csrfToken, email });
    expect(agents).toEqual([
      expect.objectContaining({
        type: "email-verification",
        email,
        agent: { clientId: null, issuer: null, userAgent: "Weft Studio" },
        status: "active",
      }),
    ]);
  });

  it("mails Studio's own wording, and the link signs in the browser that asked, with no code", async () => {
    const email = nextEmail();
    const started = await postJson("/studio/api/sign-in", { email });
    const pendingCookie = `weft_studio_sign_in=${cookiesOf(started).get("weft_studio_sign_in")}`;
    const mail = platform.smtp.received.findLast((message) => message.to.includes(email))?.raw ?? "";
    expect(mail).toContain("Subject: Sign in to Weft Studio");
    expect(mail).not.toMatch(/AI agent/);
    const link = platform.smtp.approvalLinkFor(email);
    expect(link).toMatch(new RegExp(`^${platform.weft.url}/studio/api/sign-in/approve\\?token=apv_`));

    const shown = await fetch(link, { headers: { cookie: pendingCookie } });
    const html = await shown.text();
    expect(html).toContain("Sign in to Weft Studio?");
    expect(html).not.toMatch(/AI agent/);
    const approved = await fetch(link, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: pendingCookie },
      body: new URLSearchParams({ csrf: csrfTokenOf(html), decision: "approve" }),
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.get("location")).toBe("/studio/");
    expect(setCookieHeader(approved, "weft_studio_sign_in")).toMatch(/Max-Age=0/);
    const cookie = `weft_studio_session=${cookiesOf(approved).get("weft_studio_session")}`;
    const read = await readSession(cookie);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ email });
    // The pending cookie is spent: it completes nothing more, with or without a code.
    const again = await postJson("/studio/api/sign-in/complete", { code: "123456" }, { cookie: pendingCookie });
    expect(again.status).toBe(400);
  });

  it("approved in another browser, the link shows a code for the one that asked; the agent's link leads there too", async () => {
    const email = nextEmail();
    await postJson("/studio/api/sign-in", { email });
    const link = platform.smtp.approvalLinkFor(email);
    const agentLink = link.replace("/studio/api/sign-in/approve", "/agent/auth/approve");
    const redirected = await fetch(agentLink, { redirect: "manual" });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get("location")).toBe(link);
    const approved = await decide(link, "approve");
    expect(approved.html).toContain("Type this code in Weft Studio");
    expect(claimCodeOf(approved.html)).toMatch(/^\d{6}$/);
  });

  it("keeps the agents' own wording for an agent's email registration", async () => {
    const email = nextEmail();
    const registered = await postJson("/agent/auth", emailRegistration(email));
    expect(registered.status).toBe(201);
    const mail = platform.smtp.received.findLast((message) => message.to.includes(email))?.raw ?? "";
    expect(mail).toContain("Subject: Approve an AI agent's access to Weft");
    expect(platform.smtp.approvalLinkFor(email)).toContain("/agent/auth/approve?token=");
    const studioPage = await fetch(
      platform.smtp.approvalLinkFor(email).replace("/agent/auth/approve", "/studio/api/sign-in/approve"),
    );
    expect(studioPage.status).toBe(404);
  });

  it("refuses an address that is not one, and starts nothing", async () => {
    const before = await registrationCount();
    for (const body of [{ email: "not-an-address" }, { email: "" }, { mail: "a@example.com" }, ["a@example.com"]]) {
      const refused = await postJson("/studio/api/sign-in", body);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "invalid_request" });
      expect(refused.headers.getSetCookie()).toEqual([]);
    }
    const notJson = await fetch(`${platform.weft.url}/studio/api/sign-in`, {
      method: "POST",
      body: "email=a@example.com",
    });
    expect(notJson.status).toBe(400);
    expect(await registrationCount()).toBe(before);
  });

  it("refuses to complete without the pending cookie, with a wrong code, or a malformed one", async () => {
    const { pendingCookie, code } = await approvedSignIn(nextEmail());
    const withoutCookie = await postJson("/studio/api/sign-in/complete", { code });
    expect(withoutCookie.status).toBe(400);
    expect(await withoutCookie.json()).toMatchObject({ error: "invalid_request" });

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const wrongCode = await postJson("/studio/api/sign-in/complete", { code: wrong }, { cookie: pendingCookie });
    expect(wrongCode.status).toBe(400);
    expect(await wrongCode.json()).toMatchObject({ error: "invalid_grant" });
    expect(wrongCode.headers.getSetCookie()).toEqual([]);

    for (const malformed of [{ code: "12345" }, { code: 123456 }, {}]) {
      const refused = await postJson("/studio/api/sign-in/complete", malformed, { cookie: pendingCookie });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "invalid_request" });
    }
    const otherCookie = await postJson(
      "/studio/api/sign-in/complete",
      { code },
      { cookie: "weft_studio_sign_in=clm_not-a-claim-token" },
    );
    expect(otherCookie.status).toBe(400);
    // The refusals spent attempts but not the sign-in: the right code still completes it.
    expect((await postJson("/studio/api/sign-in/complete", { code }, { cookie: pendingCookie })).status).toBe(200);
  });

  it("refuses a pending cookie already used, or expired", async () => {
    const used = await approvedSignIn(nextEmail());
    expect(
      (await postJson("/studio/api/sign-in/complete", { code: used.code }, { cookie: used.pendingCookie })).status,
    ).toBe(200);
    const again = await postJson("/studio/api/sign-in/complete", { code: used.code }, { cookie: used.pendingCookie });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });

    const late = await approvedSignIn(nextEmail());
    platform.weft.clock.advance(30 * 60 * 1000);
    const expired = await postJson("/studio/api/sign-in/complete", { code: late.code }, { cookie: late.pendingCookie });
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the session", () => {
  it("answers 401 without a session, or with a session token that is not one", async () => {
    for (const cookie of ["", "weft_studio_session=wss_unknown", `weft_studio_session=wss_${"a".repeat(43)}`]) {
      const read = await readSession(cookie);
      expect(read.status).toBe(401);
      expect(await read.json()).toMatchObject({ error: "unauthenticated", message: expect.any(String) });
    }
  });

  it("ends after 12 h without a request, and each request moves that end", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    platform.weft.clock.advance(12 * 60 * 60 * 1000 - 60_000);
    expect((await readSession(session.cookie)).status).toBe(200);
    platform.weft.clock.advance(12 * 60 * 60 * 1000 - 60_000);
    expect((await studioCall(session, "projects.list", {})).status).toBe(200);
    platform.weft.clock.advance(12 * 60 * 60 * 1000);
    expect((await readSession(session.cookie)).status).toBe(401);
    expect((await studioCall(session, "projects.list", {})).status).toBe(401);
    // The session's agent ended with it.
    const other = await signInToStudio(platform.weft.url, platform.smtp, session.email);
    registerSecret(other.csrfToken);
    const revoked = await studioAgents(other, "revoked");
    expect(revoked.map((agent) => agent.agent.userAgent)).toEqual(["Weft Studio"]);
  });

  it("ends at once when its agent is revoked, alone or with every other agent", async () => {
    const email = nextEmail();
    const first = await signInToStudio(platform.weft.url, platform.smtp, email);
    const second = await signInToStudio(platform.weft.url, platform.smtp, email);
    registerSecret(first.csrfToken);
    registerSecret(second.csrfToken);
    const agents = await studioAgents(second);
    expect(agents).toHaveLength(2);
    const firstAgent = agents[0] as AgentView;
    expect((await studioCall(second, "agents.revoke", { agentId: firstAgent.id })).status).toBe(200);
    expect((await readSession(first.cookie)).status).toBe(401);
    expect((await studioCall(first, "projects.list", {})).status).toBe(401);
    expect((await readSession(second.cookie)).status).toBe(200);

    // Revoking every agent spares the caller's own, so a third session responds to the incident.
    const third = await signInToStudio(platform.weft.url, platform.smtp, email);
    registerSecret(third.csrfToken);
    const workspaces = await studioCall(third, "access.listWorkspaces", {});
    const personal = (workspaces.json as { results: { id: string; personal: boolean }[] }).results.find(
      (workspace) => workspace.personal,
    );
    expect((await studioCall(third, "agents.revokeAll", { workspaceId: personal?.id })).status).toBe(200);
    expect((await readSession(third.cookie)).status).toBe(200);
    expect((await readSession(second.cookie)).status).toBe(401);
  });

  it("signs out with the CSRF header only, revoking its agent", async () => {
    const email = nextEmail();
    const session = await signInToStudio(platform.weft.url, platform.smtp, email);
    registerSecret(session.csrfToken);
    const signOut = (headers: Record<string, string>) =>
      fetch(`${platform.weft.url}/studio/api/sign-out`, {
        method: "POST",
        headers: { cookie: session.cookie, ...headers },
      });
    const withoutHeader = await signOut({});
    expect(withoutHeader.status).toBe(403);
    expect(await withoutHeader.json()).toMatchObject({ error: "csrf_failed" });
    expect((await signOut({ "x-weft-csrf": `wsc_${"a".repeat(43)}` })).status).toBe(403);
    expect((await readSession(session.cookie)).status).toBe(200);

    const signedOut = await signOut({ "x-weft-csrf": session.csrfToken });
    expect(signedOut.status).toBe(204);
    expect(setCookieHeader(signedOut, "weft_studio_session")).toMatch(/Max-Age=0/);
    expect((await readSession(session.cookie)).status).toBe(401);
    expect((await signOut({ "x-weft-csrf": session.csrfToken })).status).toBe(401);

    const other = await signInToStudio(platform.weft.url, platform.smtp, email);
    registerSecret(other.csrfToken);
    expect((await studioAgents(other, "revoked")).map((agent) => agent.agent.userAgent)).toEqual(["Weft Studio"]);
  });
});

describe("Studio's event stream after signing out", () => {
  it("ends at its next access check, and the reconnection is refused", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    const created = await studioCall(session, "projects.create", { name: "streamed" });
    const projectId = (created.json as { id: string }).id;
    const stream = await openEventStream(platform.weft.url, { projectId, studioCookie: session.cookie });
    expect(stream.status).toBe(200);
    const signedOut = await fetch(`${platform.weft.url}/studio/api/sign-out`, {
      method: "POST",
      headers: { cookie: session.cookie, "x-weft-csrf": session.csrfToken },
    });
    expect(signedOut.status).toBe(204);
    platform.weft.clock.advance(accessRecheckMs);
    const ended = await stream.next();
    stream.close();
    expect(ended.event).toBe("access-ended");
    const again = await openEventStream(platform.weft.url, { projectId, studioCookie: session.cookie });
    expect(again.status).toBe(401);
  });
});

describe("procedures through /studio/rpc", () => {
  it("answers the API's procedures with the session and its CSRF token", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    const created = await studioCall(session, "projects.create", { name: "studio-made" });
    expect(created.status).toBe(200);
    const listed = await studioCall(session, "projects.list", {});
    expect((listed.json as { results: { name: string }[] }).results.map((p) => p.name)).toEqual(["studio-made"]);
  });

  it("refuses every call without the session's CSRF token, GET included", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    const other = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    registerSecret(other.csrfToken);
    const call = (headers: Record<string, string>) =>
      callRpc(
        `${platform.weft.url}/studio`,
        "projects.create",
        { name: "forged" },
        { headers: { cookie: session.cookie, ...headers } },
      );
    const forgeries: Record<string, string>[] = [
      {},
      { "x-weft-csrf": "" },
      { "x-weft-csrf": "wrong" },
      { "x-weft-csrf": other.csrfToken },
    ];
    for (const headers of forgeries) {
      const refused = await call(headers);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.text)).toMatchObject({ error: "csrf_failed" });
    }
    const get = await fetch(`${platform.weft.url}/studio/rpc/projects/list?data=${encodeURIComponent("{}")}`, {
      headers: { cookie: session.cookie },
    });
    expect(get.status).toBe(403);
    const listed = await studioCall(session, "projects.list", {});
    expect((listed.json as { results: unknown[] }).results).toEqual([]);
  });

  it("reads no bearer header, and /rpc reads no session cookie", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    const agents = await studioAgents(session);
    expect(agents).toHaveLength(1);
    // A bearer credential of the same person, issued through the claim: worthless on /studio/rpc.
    const { pendingCookie, code } = await approvedSignIn(session.email);
    const claimToken = pendingCookie.slice("weft_studio_sign_in=".length);
    const claimed = await fetch(`${platform.weft.url}/agent/auth/claim/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ claim_token: claimToken, otp: code }),
    });
    const credential = ((await claimed.json()) as { credential: string }).credential;
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: credential })).status).toBe(200);
    const bearerOnly = await callRpc(`${platform.weft.url}/studio`, "projects.list", {}, { token: credential });
    expect(bearerOnly.status).toBe(401);
    const bearerWithCsrf = await callRpc(
      `${platform.weft.url}/studio`,
      "projects.list",
      {},
      {
        token: credential,
        headers: { "x-weft-csrf": session.csrfToken },
      },
    );
    expect(bearerWithCsrf.status).toBe(401);
    const cookieOnRpc = await callRpc(
      platform.weft.url,
      "projects.list",
      {},
      {
        headers: { cookie: session.cookie, "x-weft-csrf": session.csrfToken },
      },
    );
    expect(cookieOnRpc.status).toBe(401);
  });
});

describe("other origins", () => {
  it("get no CORS answer from Studio's paths, so no other page reads a CSRF token or calls with the cookie", async () => {
    const session = await signInToStudio(platform.weft.url, platform.smtp, nextEmail());
    registerSecret(session.csrfToken);
    const origin = "https://elsewhere.example";
    const read = await fetch(`${platform.weft.url}/studio/api/session`, {
      headers: { cookie: session.cookie, origin },
    });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${platform.weft.url}/studio/rpc/projects/list`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-weft-csrf" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-headers")).toBeNull();
  });
});

describe("the one-time sign-in link", () => {
  async function printedLink(): Promise<string> {
    const line = await studioStartUpLine(platform.weft.platform.context, true);
    const link = /(http\S+\/studio\/api\/sign-in\/link\?token=wsl_[A-Za-z0-9_-]{43})/.exec(line)?.[1];
    if (link === undefined) throw new Error(`no sign-in link in: ${line}`);
    return link;
  }

  it("signs the first account in once, redirecting to /studio/", async () => {
    const link = await printedLink();
    const used = await fetch(link, { redirect: "manual" });
    expect(used.status).toBe(303);
    expect(used.headers.get("location")).toBe("/studio/");
    const cookie = `weft_studio_session=${cookiesOf(used).get("weft_studio_session")}`;
    const read = await readSession(cookie);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ email: "studio1@example.com" });

    const again = await fetch(link, { redirect: "manual" });
    expect(again.status).toBe(400);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(await again.text()).toContain("sign in with your email");
  });

  it("refuses a link past its 15 minutes, or a token that is none", async () => {
    const link = await printedLink();
    platform.weft.clock.advance(15 * 60 * 1000);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(400);
    for (const token of ["", "wsl_short", `wsl_${"a".repeat(43)}`]) {
      const refused = await fetch(`${platform.weft.url}/studio/api/sign-in/link?token=${token}`, {
        redirect: "manual",
      });
      expect(refused.status).toBe(400);
    }
  });

  it("says to sign in by mail when printed anywhere but a terminal", async () => {
    const line = await studioStartUpLine(platform.weft.platform.context, false);
    expect(line).toBe(`Weft Studio: ${platform.weft.url}/studio/ (sign in with your email address)`);
  });
});

describe("behind an https base URL", () => {
  it("marks both cookies Secure", async () => {
    const secure = await startTestPlatform({
      env: { SMTP_URL: platform.smtp.url },
      configure: (config) => ({
        ...config,
        baseUrl: "https://weft.example.test",
        authUrl: "https://weft.example.test",
      }),
    });
    try {
      const email = nextEmail();
      const base = secure.platform.listenUrl;
      const started = await fetch(`${base}/studio/api/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      expect(started.status).toBe(202);
      expect(setCookieHeader(started, "weft_studio_sign_in")).toMatch(/; Secure(;|$)/);
      const approvalLink = platform.smtp.approvalLinkFor(email).replace("https://weft.example.test", base);
      const approved = await decide(approvalLink, "approve");
      const completed = await fetch(`${base}/studio/api/sign-in/complete`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          cookie: `weft_studio_sign_in=${cookiesOf(started).get("weft_studio_sign_in")}`,
        },
        body: JSON.stringify({ code: claimCodeOf(approved.html) }),
      });
      expect(completed.status).toBe(200);
      registerSecret(((await completed.json()) as { csrfToken: string }).csrfToken);
      const header = setCookieHeader(completed, "weft_studio_session") ?? "";
      expect(header).toMatch(/; Secure(;|$)/);
      expect(header).toMatch(/; Path=\/studio(;|$)/);
    } finally {
      await secure.stop();
    }
  });
});

describe("the log", () => {
  it("holds every request of this file, and no cookie, session token, CSRF token or link token", () => {
    const text = log.lines.map((line) => JSON.stringify(line)).join("\n");
    expect(log.lines.some((line) => line.path === "/studio/api/sign-in/complete")).toBe(true);
    expect(text).not.toMatch(/weft_studio_session|weft_studio_sign_in|cookie|wss_|wsc_|wsl_|clm_/i);
  });
});
