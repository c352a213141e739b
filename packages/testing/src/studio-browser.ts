import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { accessibilityViolations } from "./accessibility.ts";
import { launchChromium } from "./browser.ts";
import { fileScoped } from "./file-scoped.ts";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.ts";
import { signInToStudio } from "./studio-session.ts";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "./test-platform.ts";

/** Where Studio's browser tests leave their screenshots, for a person to look through after a run. */
export const studioScreenshots = fileURLToPath(new URL("../../../test-results/studio", import.meta.url));

export interface StudioInBrowser {
  readonly weft: TestPlatform;
  /** Where the platform sends its mail, sign-in links included. */
  readonly smtp: SmtpSink;
  readonly browser: Browser;
}

/**
 * Starts an SMTP sink, a platform that mails through it and a headless Chromium before the file's
 * tests, and stops them after: the set-up of Studio's browser suites. The platform's clock is set to
 * now, since Studio reads its ranges (usage per day, the timeline) from the browser's clock.
 */
export function studioInBrowser(options: TestPlatformOptions = {}): StudioInBrowser {
  return fileScoped<StudioInBrowser>(
    ["weft", "smtp", "browser"],
    async () => {
      await mkdir(studioScreenshots, { recursive: true });
      const smtp = await startSmtpSink();
      let weft: TestPlatform | undefined;
      try {
        weft = await startTestPlatform({ ...options, env: { SMTP_URL: smtp.url, ...options.env } });
        weft.clock.set(new Date());
        return { weft, smtp, browser: await launchChromium() };
      } catch (error) {
        await weft?.stop();
        await smtp.close();
        throw error;
      }
    },
    async ({ weft, smtp, browser }) => {
      await browser.close();
      await weft.stop();
      await smtp.close();
    },
  );
}

/** A browser context at desktop size whose waits give up after 15 s, signed out. */
export async function studioContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(15_000);
  return context;
}

/** A browser context signed in to Studio as `email`, by mail as the app does it. */
export async function signedInStudioContext(studio: StudioInBrowser, email: string): Promise<BrowserContext> {
  const session = await signInToStudio(studio.weft.url, studio.smtp, email);
  const [name = "", value = ""] = session.cookie.split("=");
  const context = await studioContext(studio.browser);
  await context.addCookies([{ name, value, url: `${studio.weft.url}/studio` }]);
  return context;
}

/**
 * Adds to `problems` each error the page throws or logs. A failed load is expected (the session
 * probe answers 401 when signed out, a refused call its status), so it is not one.
 */
export function collectPageProblems(page: Page, problems: string[]): void {
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
}

/**
 * Screenshots of the page at desktop width (light and dark) and at 375 px, with the accessibility
 * violations axe finds in each (none, of any impact), and, unless `overflow` is false, no sideways
 * scrolling at 375 px. The page is left at desktop width in the light theme.
 */
export async function checkStudioPage(page: Page, name: string, options: { overflow?: boolean } = {}): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(studioScreenshots, `${name}-desktop.png`), fullPage: true });
  expect(await accessibilityViolations(page), `${name} at 1280 px`).toEqual([]);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(studioScreenshots, `${name}-dark.png`), fullPage: true });
  expect(await accessibilityViolations(page), `${name} in the dark theme`).toEqual([]);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.screenshot({ path: join(studioScreenshots, `${name}-375px.png`), fullPage: true });
  expect(await accessibilityViolations(page), `${name} at 375 px`).toEqual([]);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await accessibilityViolations(page), `${name} at 375 px in the dark theme`).toEqual([]);
  await page.emulateMedia({ colorScheme: "light" });
  if (options.overflow !== false) {
    const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    expect(overflow, `${name} is wider than 375 px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
