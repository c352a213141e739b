import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  accessibilityViolations,
  approveSignIn,
  codeRequest,
  csrfTokenOf,
  emailSequence,
  hasChromium,
  launchChromium,
  mailingTestPlatform,
  redeemCode,
  registerOAuthClient,
  registerSecret,
  signInCodeOf,
  startSignIn,
  typeSignInCode,
  unthrottledSignUpEnv,
} from "@weft/testing";
import { count, eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthAuthorizationCodes, registrations } from "../src/db/schema/index.ts";

const platform = mailingTestPlatform({ env: unthrottledSignUpEnv });
let browser: Browser;
/** The client's loopback listener: every answer the authorize page sends a client lands here. */
let listener: Server;
let redirectUri: string;
const callbacks: URL[] = [];

beforeAll(async () => {
  listener = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? "/", redirectUri));
    response.end("You can close this window.");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
  if (hasChromium) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => listener.close(resolve));
});

const nextEmail = emailSequence("binding");

interface Authorization {
  clientId: string;
  verifier: string;
  url: string;
  state: string;
}

/** A freshly registered client and an authorization request of its, as an MCP client would open it. */
async function newAuthorization(clientName = "Binding Test Client"): Promise<Authorization> {
  const registered = await registerOAuthClient(platform.weft.url, {
    client_name: clientName,
    redirect_uris: [redirectUri],
  });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;
  const state = `state-${clientId}`;
  const { url, verifier } = codeRequest(platform.weft.url, {
    client_id: clientId,
    redirect_uri: redirectUri,
    state,
    scope: "projects:read",
  });
  return { clientId, verifier, url, state };
}

async function registrationOf(email: string) {
  const [row] = await platform.weft.database.db.select().from(registrations).where(eq(registrations.email, email));
  if (row === undefined) throw new Error(`no registration for ${email}`);
  return row;
}

async function authorizationCodesOf(registrationId: string): Promise<number> {
  const [row] = await platform.weft.database.db
    .select({ n: count() })
    .from(oauthAuthorizationCodes)
    .where(eq(oauthAuthorizationCodes.registrationId, registrationId));
  return row?.n ?? 0;
}

/** The raw newest mail to `to`, quoted-printable undone. */
function mailTo(to: string): string {
  const mail = platform.smtp.received.findLast((message) => message.to.includes(to));
  if (mail === undefined) throw new Error(`no mail to ${to}`);
  return mail.raw;
}

function cancelLinkFor(to: string): string {
  const link = /https?:\/\/[^\s"<>]+\/oauth2\/approve\?token=apv_[A-Za-z0-9_-]{43}&answer=cancel/.exec(mailTo(to));
  if (link === null) throw new Error(`no cancel link in the mail to ${to}`);
  return link[0];
}

/** A code that is not `code`: its last digit moved on. */
function otherCode(code: string): string {
  return `${code.slice(0, 5)}${(Number(code.slice(5)) + 1) % 10}`;
}

/** In a browser context: open the authorize page and send the approval link to `email`. */
async function startInBrowser(context: BrowserContext, url: string, email: string): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await page.getByRole("heading", { name: "Check your mail" }).waitFor();
  const [cookie] = await context.cookies();
  if (cookie !== undefined) registerSecret(cookie.value);
  return page;
}

/** In a browser context: open the mailed link and press Approve; returns the page it lands on. */
async function approveInBrowser(context: BrowserContext, email: string): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(platform.smtp.approvalLinkFor(email));
  await page.getByRole("heading", { name: "Approve this sign-in?" }).waitFor();
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Approve" }).click();
  return page;
}

/** Presses Allow on the consent page and returns the code the client's listener received. */
async function allow(page: Page, authorization: Authorization): Promise<string> {
  await page.getByRole("heading", { name: /Allow Binding Test Client/ }).waitFor();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.getByText("You can close this window.").waitFor();
  const callback = callbacks.find((url) => url.searchParams.get("state") === authorization.state);
  expect(callback?.searchParams.get("error")).toBeNull();
  return callback?.searchParams.get("code") as string;
}

function redeem(authorization: Authorization, code: string) {
  return redeemCode(platform.weft.url, { ...authorization, code, redirectUri });
}

/** Runs `use` with two browsers of their own (fresh contexts: no cookies shared), closing both after. */
async function inTwoBrowsers(use: (first: BrowserContext, second: BrowserContext) => Promise<void>): Promise<void> {
  const first = await browser.newContext();
  const second = await browser.newContext();
  try {
    await use(first, second);
  } finally {
    await first.close();
    await second.close();
  }
}

/** A new person starts signing in for a new authorization and approves in another browser, which shows the code. */
async function signInApprovedElsewhere() {
  const email = nextEmail();
  const authorization = await newAuthorization();
  const started = await startSignIn(authorization.url, email);
  const approved = await approveSignIn(platform.smtp.approvalLinkFor(email));
  return { email, authorization, started, code: signInCodeOf(await approved.text()) };
}

describe.skipIf(!hasChromium)("an OAuth sign-in completes only for the person at the keyboard (Chromium)", () => {
  it("gives a stranger who typed the victim's address nothing when the victim approves in their own browser", async () => {
    const victim = nextEmail();
    const authorization = await newAuthorization();
    await inTwoBrowsers(async (attacker, victimBrowser) => {
      const attackerPage = await startInBrowser(attacker, authorization.url, victim);
      const approved = await approveInBrowser(victimBrowser, victim);
      // The victim's browser did not start the sign-in: it shows a code, and signs nobody in.
      await approved.getByRole("heading", { name: "Type this code where you sign in" }).waitFor();
      const code = (await approved.locator("#sign-in-code").textContent()) as string;
      expect(code).toMatch(/^\d{6}$/);
      await approved.getByText("Never give this code to anyone").waitFor();

      // The attacker's browser, which holds the sign-in cookie, is asked for the code, not for consent.
      await attackerPage.goto(authorization.url);
      await attackerPage.getByRole("heading", { name: "Type the code" }).waitFor();
      expect(await accessibilityViolations(attackerPage)).toEqual([]);
      expect(await attackerPage.getByRole("button", { name: "Allow" }).count()).toBe(0);
      await attackerPage.getByLabel("Code from the approval page").fill(otherCode(code));
      await attackerPage.getByRole("button", { name: "Finish signing in" }).click();
      await attackerPage.getByText("Tries left: 4.").waitFor();

      const registration = await registrationOf(victim);
      expect(registration.status).toBe("approved");
      expect(await authorizationCodesOf(registration.id)).toBe(0);
      expect(callbacks.some((url) => url.searchParams.get("state") === authorization.state)).toBe(false);
      const guessed = await redeem(authorization, "woc_guessed");
      expect(guessed.status).toBe(400);
      expect(guessed.body.error).toBe("invalid_grant");
    });
  }, 90_000);

  it("leads the person who approves in the browser that started the sign-in straight to consent", async () => {
    const email = nextEmail();
    const authorization = await newAuthorization();
    const context = await browser.newContext();
    try {
      await startInBrowser(context, authorization.url, email);
      const page = await approveInBrowser(context, email);
      const code = await allow(page, authorization);
      expect((await redeem(authorization, code)).status).toBe(200);
      expect((await registrationOf(email)).status).toBe("claimed");
    } finally {
      await context.close();
    }
  }, 90_000);

  it("finishes a sign-in approved on another device once the code shown there is typed where it started", async () => {
    const email = nextEmail();
    const authorization = await newAuthorization();
    await inTwoBrowsers(async (laptop, phone) => {
      const laptopPage = await startInBrowser(laptop, authorization.url, email);
      const approved = await approveInBrowser(phone, email);
      const code = (await approved.locator("#sign-in-code").textContent()) as string;
      expect(await accessibilityViolations(approved)).toEqual([]);
      // The laptop still shows "Check your mail", whose form takes the code.
      expect(await accessibilityViolations(laptopPage)).toEqual([]);
      await laptopPage.getByLabel("Code from the approval page").fill(code);
      await laptopPage.getByRole("button", { name: "Finish signing in" }).click();
      const authorizationCode = await allow(laptopPage, authorization);
      const token = await redeem(authorization, authorizationCode);
      expect(token.status).toBe(200);
      expect(token.body.scope).toBe("projects:read");
    });
  }, 90_000);

  it("cancels the sign-in from the mail's 'this was not me' link", async () => {
    const victim = nextEmail();
    const authorization = await newAuthorization();
    await inTwoBrowsers(async (attacker, victimBrowser) => {
      const attackerPage = await startInBrowser(attacker, authorization.url, victim);
      const link = platform.smtp.approvalLinkFor(victim);
      // The approval page as opened before the cancel, to press Approve on after it.
      const csrf = csrfTokenOf(await (await fetch(link)).text());
      const page = await victimBrowser.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(cancelLinkFor(victim));
      await page.getByRole("heading", { name: "Cancel this sign-in?" }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      expect((await registrationOf(victim)).status).toBe("pending");
      await page.getByRole("button", { name: "Cancel the sign-in" }).click();
      await page.getByRole("heading", { name: "Sign-in cancelled" }).waitFor();
      expect((await registrationOf(victim)).status).toBe("denied");

      // The browser that started it is back at the start; the approval link approves nothing any more.
      await attackerPage.goto(authorization.url);
      await attackerPage.getByRole("heading", { name: "Sign in to Weft" }).waitFor();
      const late = await fetch(link, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ decision: "approve", csrf }).toString(),
      });
      expect(late.status).toBe(409);
      expect((await registrationOf(victim)).status).toBe("denied");
    });
  }, 90_000);
});

describe("the approval mail and the code step", () => {
  it("names the client, its id, its redirect host, and the address and browser that asked", async () => {
    const email = nextEmail();
    const authorization = await newAuthorization("Mail Named Client");
    const signIn = await fetch(authorization.url, {
      headers: { "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0" },
    });
    const csrf = csrfTokenOf(await signIn.text());
    const sent = await fetch(authorization.url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
      },
      body: new URLSearchParams({ step: "sign-in", csrf, email }).toString(),
    });
    expect(sent.status).toBe(200);
    const mail = mailTo(email);
    expect(mail).toContain("Subject: Approve a sign-in to Weft");
    expect(mail).toContain("Application: Mail Named Client");
    expect(mail).toContain(`Client ID: ${authorization.clientId}`);
    expect(mail).toContain(`Sends you back to: ${new URL(redirectUri).host}`);
    expect(mail).toContain("Asked from: 127.0.0.1, Firefox 128 on Windows");
    expect(platform.smtp.approvalLinkFor(email)).toMatch(
      new RegExp(`^${platform.weft.url}/oauth2/approve\\?token=apv_`),
    );
    expect(cancelLinkFor(email).startsWith(platform.smtp.approvalLinkFor(email))).toBe(true);
  });

  it("copies none of a User-Agent's own words into the mail", async () => {
    const email = nextEmail();
    const authorization = await newAuthorization();
    const userAgent = "Call Weft support at 555 0100/1 (urgent)";
    const signIn = await (await fetch(authorization.url)).text();
    await fetch(authorization.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": userAgent },
      body: new URLSearchParams({ step: "sign-in", csrf: csrfTokenOf(signIn), email }).toString(),
    });
    const mail = mailTo(email);
    expect(mail).toContain("Asked from: 127.0.0.1, an unrecognised browser");
    expect(mail).not.toContain("support");
  });

  it("counts a wrong code, refuses the right one after five, and issues nothing", async () => {
    const { email, authorization, started, code } = await signInApprovedElsewhere();
    registerSecret(started.cookie.split("=")[1] as string);
    let page = started.checkMailHtml;
    for (const left of [4, 3, 2, 1]) {
      const wrong = await typeSignInCode(authorization.url, started.cookie, page, otherCode(code));
      page = await wrong.text();
      expect(wrong.status).toBe(400);
      expect(page).toContain(`Tries left: ${left}.`);
    }
    const last = await typeSignInCode(authorization.url, started.cookie, page, otherCode(code));
    expect(last.status).toBe(400);
    expect(await last.text()).toContain("it was the last try");
    const right = await typeSignInCode(authorization.url, started.cookie, page, code);
    expect(right.status).toBe(400);
    const refused = await right.text();
    expect(refused).toContain("Sign in to Weft");
    expect(refused).not.toContain("Allow");
    expect(await authorizationCodesOf((await registrationOf(email)).id)).toBe(0);
  });

  it("refuses the right code after its 10 minutes", async () => {
    const { authorization, started, code } = await signInApprovedElsewhere();
    platform.weft.clock.advance(10 * 60 * 1000);
    const late = await typeSignInCode(authorization.url, started.cookie, started.checkMailHtml, code);
    expect(late.status).toBe(400);
    const html = await late.text();
    expect(html).toContain("The code expired.");
    expect(html).not.toContain("Allow");
  });

  it("answers a code that is not six digits with a 400 that counts no try", async () => {
    const { email, authorization, started, code } = await signInApprovedElsewhere();
    for (const typed of ["", "12345", "1234567", "abcdef", "12 34 5x", "１２３４５６"]) {
      const malformed = await typeSignInCode(authorization.url, started.cookie, started.checkMailHtml, typed);
      expect(malformed.status, typed).toBe(400);
      expect(await malformed.text(), typed).toContain("Type the 6 digits");
    }
    expect((await registrationOf(email)).codeAttempts).toBe(0);
    const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
    const right = await typeSignInCode(authorization.url, started.cookie, started.checkMailHtml, spaced);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("Allow Binding Test Client");
  });

  it("takes a code only from the browser that started the sign-in, with its CSRF token", async () => {
    const { email, authorization, started, code } = await signInApprovedElsewhere();
    const noCookie = await typeSignInCode(authorization.url, "", started.checkMailHtml, code);
    expect(noCookie.status).toBe(403);
    const other = await startSignIn(authorization.url, nextEmail());
    const otherBrowser = await typeSignInCode(authorization.url, other.cookie, other.checkMailHtml, code);
    expect(otherBrowser.status).toBe(400);
    const forged = await typeSignInCode(authorization.url, started.cookie, 'name="csrf" value="1.x"', code);
    expect(forged.status).toBe(403);
    expect((await registrationOf(email)).codeAttempts).toBe(0);
    const right = await typeSignInCode(authorization.url, started.cookie, started.checkMailHtml, code);
    expect(right.status).toBe(200);
  });

  it("changes nothing on a GET of the links, and answers bad input with a 400 or 404", async () => {
    const email = nextEmail();
    const authorization = await newAuthorization();
    await startSignIn(authorization.url, email);
    const link = platform.smtp.approvalLinkFor(email);
    expect((await fetch(link)).status).toBe(200);
    expect((await fetch(cancelLinkFor(email))).status).toBe(200);
    expect((await registrationOf(email)).status).toBe("pending");
    expect((await fetch(`${link}&answer=approve`)).status).toBe(400);
    expect((await fetch(`${platform.weft.url}/oauth2/approve?token=apv_${"x".repeat(43)}`)).status).toBe(404);
    expect((await fetch(`${platform.weft.url}/oauth2/approve?token=nope`)).status).toBe(404);
    const post = (fields: Record<string, string>) =>
      fetch(link, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    expect((await post({ decision: "approve", csrf: "1.x" })).status).toBe(403);
    const csrf = csrfTokenOf(await (await fetch(link)).text());
    expect((await post({ decision: "allow-everything", csrf })).status).toBe(400);
    expect((await registrationOf(email)).status).toBe("pending");
    // The agents' approval page sends an OAuth sign-in's link to its own page, deciding nothing.
    const agentPath = link.replace("/oauth2/approve", "/agent/auth/approve");
    const redirected = await fetch(agentPath, { redirect: "manual" });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get("location")).toBe(link);
    const posted = await fetch(agentPath, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve", csrf }).toString(),
    });
    expect(posted.status).toBe(303);
    expect((await registrationOf(email)).status).toBe("pending");
  });
});
