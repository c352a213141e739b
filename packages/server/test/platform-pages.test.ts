import { emailRegistration, postJson, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readableInstant } from "../src/shared/readable-instant.ts";

let weft: TestPlatform;

beforeAll(async () => {
  weft = await startTestPlatform();
});

afterAll(async () => {
  await weft.stop();
});

describe("readableInstant", () => {
  const now = new Date("2026-11-23T09:14:00Z");
  const later = (ms: number) => readableInstant(new Date(now.getTime() + ms), now);

  it("says how far away an instant is, with its UTC clock time", () => {
    expect(later(10 * 60_000)).toBe("in 10 minutes (09:24 UTC)");
    expect(later(45_000)).toBe("in 45 seconds (09:14 UTC)");
    expect(later(3 * 3_600_000)).toBe("in 3 hours (12:14 UTC)");
    expect(later(-5 * 60_000)).toBe("5 minutes ago (09:09 UTC)");
  });

  it("names the day when the instant is not today", () => {
    expect(later(15 * 3_600_000)).toBe("in 15 hours (24 Nov, 00:14 UTC)");
    expect(later(2 * 86_400_000)).toBe("in 2 days (25 Nov, 09:14 UTC)");
  });
});

describe("GET /", () => {
  it("is a page that links to the API reference, the agents' guide and the health check", async () => {
    const response = await fetch(`${weft.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain(`href="${weft.url}/openapi.json"`);
    expect(page).toContain(`href="${weft.url}/auth.md"`);
    expect(page).toContain('href="/healthz"');
    expect(page).toContain(`<a href="${weft.url}/studio">Open Weft Studio</a>`);
    expect(response.headers.get("vary")).toMatch(/Accept/);
  });

  it("sends a browser, which asks for text/html, to Studio", async () => {
    const browser = await fetch(`${weft.url}/`, {
      redirect: "manual",
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe(`${weft.url}/studio`);
    for (const accept of ["*/*", "application/json", "text/html;q=0"]) {
      const client = await fetch(`${weft.url}/`, { redirect: "manual", headers: { accept } });
      expect(client.status, accept).toBe(200);
    }
  });
});

describe("GET /favicon.ico", () => {
  it("answers the platform's icon, so no page logs a 404 for it", async () => {
    for (const path of ["/favicon.ico", "/favicon.svg"]) {
      const icon = await fetch(`${weft.url}${path}`);
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get("content-type")).toBe("image/svg+xml");
      expect(await icon.text()).toMatch(/^<svg /);
    }
  });
});

describe("the mail a person gets, read in the dev mailbox", () => {
  it("shows the approval link as a link, and the approval page says when the request expires", async () => {
    expect((await postJson(`${weft.url}/agent/auth`, emailRegistration("pages@example.com"))).status).toBe(201);
    const mailbox = await (await fetch(weft.mailboxUrl ?? "")).text();
    const link = /<a href="([^"]+)">\1<\/a>/.exec(mailbox)?.[1]?.replaceAll("&amp;", "&");
    expect(link).toMatch(new RegExp(`^${weft.url}/agent/auth/approve\\?token=apv_`));

    const approval = await (await fetch(link ?? "")).text();
    const expiry = new Date(weft.clock.now().getTime() + 30 * 60_000).toISOString().slice(11, 16);
    expect(approval).toContain(`expires <time datetime="`);
    expect(approval).toContain(`in 30 minutes (${expiry} UTC)</time>`);
  });
});
