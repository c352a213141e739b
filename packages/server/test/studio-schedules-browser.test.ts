import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  callRpc,
  checkStudioPage,
  collectPageProblems,
  createTestIdentity,
  deployProject,
  hasChromium,
  realTimeClock,
  signedInStudioContext,
  studioInBrowser,
  studioScreenshots,
  type TestIdentity,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Studio's schedules, traces and the details a person notices, in Chromium: pausing and running a
 * schedule, a trace whose bars sit inside their parents' on one time axis, usage by day with its
 * zeros, the failed step among the steps, an unknown execution, the top bar at 1280 px, and `/`.
 */

const readmeImage = fileURLToPath(new URL("../../../docs/images/studio-schedules.png", import.meta.url));
const email = "ada@example.com";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

const report = workflow({
  name: "report",
  async run(input: { scheduledFor: string; team: string }, ctx) {
    const rows = await ctx.step("gather", async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return 3;
    });
    const summary = await ctx.step("summarise", async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return input.team + ": " + rows + " rows";
    });
    return { summary };
  },
});

const flaky = workflow({
  name: "flaky",
  retries: { maxAttempts: 1 },
  async run(_input: unknown, ctx) {
    await ctx.step("prepare", async () => "ready");
    await ctx.step("charge", async () => {
      throw new Error("the card was declined");
    });
  },
});

const napper = workflow({
  name: "napper",
  async run(_input: unknown, ctx) {
    await ctx.step("before", async () => "awake");
    await ctx.sleep("nap", "1m");
    return ctx.step("after", async () => "rested");
  },
});

export default defineConfig({ workflows: [report, flaky, napper] });
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "report" },
    { name: "flaky", retries: { maxAttempts: 1, minDelayMs: 1000, maxDelayMs: 60000 } },
    { name: "napper" },
  ],
  schedules: [
    {
      name: "weekday-mornings",
      workflow: "report",
      cron: "0 9 * * 1-5",
      timezone: "Europe/Paris",
      input: { team: "sales" },
    },
    { name: "hourly", workflow: "report", cron: "0 * * * *", input: { team: "ops" } },
  ],
};

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

describe.skipIf(!hasChromium)("Schedules, traces and details in Studio", () => {
  const platform = studioInBrowser({ clock: realTimeClock() });
  let context: BrowserContext;
  let page: Page;
  let ada: TestIdentity;
  let projectId: string;
  const problems: string[] = [];

  async function executionOf(executionId: string): Promise<{ status: string; traceId: string }> {
    const read = await callRpc(platform.weft.url, "workflows.getExecution", { executionId }, { token: ada.credential });
    return read.json as { status: string; traceId: string };
  }

  async function finished(executionId: string, status: string): Promise<{ traceId: string }> {
    await expect.poll(async () => (await executionOf(executionId)).status, { timeout: 30_000 }).toBe(status);
    return executionOf(executionId);
  }

  beforeAll(async () => {
    context = await signedInStudioContext(platform, email);
    page = await context.newPage();
    collectPageProblems(page, problems);
    page.on("console", (message) => {
      // A thrown error or a warning is not expected.
      if (message.type() === "warning") problems.push(`warning: ${message.text()}`);
    });
    page.on("response", (response) => {
      // A page, script, style or icon that is missing (a refused call is a fetch, and expected).
      const kind = response.request().resourceType();
      if (response.status() === 404 && ["document", "script", "stylesheet", "image", "font"].includes(kind))
        problems.push(`404 ${response.url()}`);
    });
    ada = await createTestIdentity(platform.weft, email);
    ({ projectId } = await deployProject(platform.weft, ada, { name: "Reports", source: configSource, manifest }));
  }, 120_000);

  it("leads a browser from / to Studio, with the header on one row at 1280 px", { timeout: 60_000 }, async () => {
    await page.goto(`${platform.weft.url}/`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio");
    const tops = await page
      .locator(".top-bar > *:not(.skip-link), .top-bar .nav-list a")
      .evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect()));
    const bar = await page.locator(".top-bar").boundingBox();
    // One row: every item of the bar overlaps the bar's middle line.
    const middle = (bar?.y ?? 0) + (bar?.height ?? 0) / 2;
    for (const box of tops) expect(box.top <= middle && box.bottom >= middle).toBe(true);
    expect(bar?.height ?? 0).toBeLessThan(80);
    await page.getByRole("heading", { name: "Next scheduled runs" }).waitFor();
    await page.getByRole("link", { name: "hourly" }).waitFor();
    await checkStudioPage(page, "overview-schedules");
  });

  it("signs in with Studio's own mail and page: the same browser goes on by itself, another gets a code", {
    timeout: 120_000,
  }, async () => {
    const newcomer = "grace@example.com";
    const asking = await platform.browser.newContext({ viewport: { width: 1280, height: 900 } });
    asking.setDefaultTimeout(15_000);
    const studio = await asking.newPage();
    await studio.goto(`${platform.weft.url}/studio/schedules`);
    await studio.getByLabel("Email").fill(newcomer);
    await studio.getByRole("button", { name: "Email me a sign-in link" }).click();
    await studio.getByText("Waiting for the link…").waitFor();
    await expect
      .poll(() => platform.smtp.received.some((mail) => mail.to.includes(newcomer)), { timeout: 30_000 })
      .toBe(true);
    const mail = platform.smtp.received.findLast((message) => message.to.includes(newcomer))?.raw ?? "";
    expect(mail).toContain("Subject: Sign in to Weft Studio");
    expect(mail).not.toContain("AI agent");

    // Opened on another device first: the page offers a code for the browser that asked.
    const phone = await platform.browser.newContext({ viewport: { width: 375, height: 812 } });
    const onPhone = await phone.newPage();
    await onPhone.goto(platform.smtp.approvalLinkFor(newcomer));
    await onPhone.getByRole("heading", { name: "Sign in to Weft Studio?" }).waitFor();
    expect(await onPhone.locator("#sign-in-email").textContent()).toBe(newcomer);
    await checkStudioPage(onPhone, "sign-in-approval");
    await phone.close();

    // Opened in the browser that asked: one click, and the Studio tab goes on to the page it wanted.
    const approval = await asking.newPage();
    await approval.goto(platform.smtp.approvalLinkFor(newcomer));
    await approval.getByRole("button", { name: "Sign in" }).click();
    await approval.waitForURL(`${platform.weft.url}/studio/`);
    await studio.getByRole("heading", { name: "Schedules", level: 1 }).waitFor({ timeout: 20_000 });
    expect(new URL(studio.url()).pathname).toBe("/studio/schedules");
    await asking.close();
  });

  it("approved in another browser, the link shows the code to type where the person asked", {
    timeout: 90_000,
  }, async () => {
    const traveller = "hedy@example.com";
    const asking = await platform.browser.newContext({ viewport: { width: 1280, height: 900 } });
    asking.setDefaultTimeout(15_000);
    const studio = await asking.newPage();
    await studio.goto(`${platform.weft.url}/studio/`);
    await studio.getByLabel("Email").fill(traveller);
    await studio.getByRole("button", { name: "Email me a sign-in link" }).click();
    await studio.getByLabel("6-digit code").waitFor();
    await expect
      .poll(() => platform.smtp.received.some((mail) => mail.to.includes(traveller)), { timeout: 30_000 })
      .toBe(true);
    const phone = await platform.browser.newContext({ viewport: { width: 375, height: 812 } });
    const onPhone = await phone.newPage();
    await onPhone.goto(platform.smtp.approvalLinkFor(traveller));
    await onPhone.getByRole("button", { name: "Sign in" }).click();
    await onPhone.getByRole("heading", { name: "Type this code in Weft Studio" }).waitFor();
    const code = (await onPhone.locator("#claim-code").textContent())?.trim() ?? "";
    expect(code).toMatch(/^\d{6}$/);
    await checkStudioPage(onPhone, "sign-in-code");
    await phone.close();
    await studio.getByLabel("6-digit code").fill(code);
    await studio.getByRole("button", { name: "Sign in" }).click();
    await studio.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await asking.close();
  });

  it("lists the schedules in words, pauses one, runs it now, sees what it started, and resumes it", {
    timeout: 180_000,
  }, async () => {
    await page.getByRole("link", { name: "Schedules", exact: true }).click();
    await page.getByRole("heading", { name: "Schedules", level: 1 }).waitFor();
    const card = page.getByRole("article", { name: "weekday-mornings" });
    await card.getByText("At 09:00, Monday through Friday (Europe/Paris)").waitFor();
    await card.getByText("active", { exact: true }).waitFor();
    expect(await card.locator("time").count()).toBeGreaterThan(0);

    await card.getByRole("button", { name: "Pause weekday-mornings" }).click();
    await card.getByText("paused", { exact: true }).waitFor();
    await card.getByText("none while paused").waitFor();
    const listed = await callRpc(platform.weft.url, "schedules.list", { projectId }, { token: ada.credential });
    expect((listed.json as { results: { name: string; pausedThroughApi: boolean }[] }).results).toContainEqual(
      expect.objectContaining({ name: "weekday-mornings", pausedThroughApi: true }),
    );

    await card.getByRole("button", { name: "Run weekday-mornings now" }).click();
    const started = card.getByRole("status").getByRole("link");
    await started.waitFor();
    const executionId = (await started.textContent()) ?? "";
    expect(executionId).toMatch(/^exe_/);
    await finished(executionId, "succeeded");
    await card.getByRole("region", { name: "Executions started by weekday-mornings" }).waitFor();
    await card.locator(".badge.status-succeeded").waitFor({ timeout: 20_000 });
    const audit = await callRpc(
      platform.weft.url,
      "access.auditLog",
      { workspaceId: ada.personalWorkspaceId, filter: { action: "schedule.run" } },
      { token: ada.credential },
    );
    expect((audit.json as { data: { targetId: string }[] }).data).toEqual([
      expect.objectContaining({ targetId: `${projectId}/weekday-mornings` }),
    ]);
    await checkStudioPage(page, "schedules");
    await copyFile(join(studioScreenshots, "schedules-desktop.png"), readmeImage);

    await card.getByRole("button", { name: "Resume weekday-mornings" }).click();
    await card.getByText("active", { exact: true }).waitFor();

    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/schedules`);
    await page.getByRole("heading", { name: "Schedules of Reports", level: 1 }).waitFor();
    await page.getByRole("article", { name: "hourly" }).getByText("Every hour (UTC)").waitFor();
    await checkStudioPage(page, "project-schedules");
  });

  it("draws a trace's spans on one time axis, each child inside its parent, and opens a span", {
    timeout: 120_000,
  }, async () => {
    const ran = await callRpc(
      platform.weft.url,
      "workflows.run",
      { projectId, workflow: "report", input: { scheduledFor: new Date().toISOString(), team: "eu" } },
      { token: ada.credential },
    );
    const { executionId } = ran.json as { executionId: string };
    const { traceId } = await finished(executionId, "succeeded");
    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/traces/${traceId}`);
    await page.getByRole("list", { name: "Spans" }).waitFor();
    await page.locator(".waterfall-axis .axis-tick").first().waitFor();
    expect(await page.locator(".waterfall-axis .axis-tick").count()).toBe(5);

    const measure = () =>
      page.locator(".waterfall > li").evaluateAll((items) =>
        items.map((item) => {
          const box = (selector: string) => {
            const rect = item.querySelector(selector)?.getBoundingClientRect();
            return { x: rect?.x ?? 0, y: rect?.y ?? 0, width: rect?.width ?? 0, height: rect?.height ?? 0 };
          };
          return {
            name: item.querySelector(".span-name")?.textContent ?? "",
            indent: Number(item.getAttribute("data-depth")),
            track: box(".span-track"),
            bar: box(".span-bar"),
          };
        }),
      );
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const rows = await measure();
      expect(rows.length, `spans at ${width} px`).toBeGreaterThanOrEqual(4);
      const [first] = rows;
      // Every track is the same width at the same place: one axis for all rows.
      for (const row of rows) {
        expect(row.track.x, `${row.name} at ${width} px`).toBeCloseTo(first?.track.x ?? 0, 0);
        expect(row.track.width, `${row.name} at ${width} px`).toBeCloseTo(first?.track.width ?? 0, 0);
      }
      // Each bar lies within the bar of the nearest row above it that is less indented: its parent.
      // The trigger, an instant the execution follows, holds no span in time and is left out.
      let nested = 0;
      rows.forEach((row, index) => {
        const parent = rows
          .slice(0, index)
          .reverse()
          .find((candidate) => candidate.indent < row.indent);
        if (parent === undefined || parent.name.startsWith("trigger")) return;
        nested += 1;
        const inside = (outer: Box, inner: Box) =>
          inner.x >= outer.x - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5;
        expect(inside(parent.bar, row.bar), `${row.name} inside ${parent.name} at ${width} px`).toBe(true);
      });
      // The attempt within the execution, and each step within the attempt.
      expect(nested, `nested spans at ${width} px`).toBeGreaterThanOrEqual(3);
      const steps = rows.filter((row) => /gather|summarise/.test(row.name));
      expect(steps).toHaveLength(2);
      // The steps' bars are drawn (a clipped bar would be nothing), in the order the steps ran.
      for (const step of steps) expect(step.bar.width, step.name).toBeGreaterThanOrEqual(0.5);
      // gather ends before summarise starts: the second bar begins at or after the first one's end.
      const [gather, summarise] = steps;
      expect((summarise?.bar.x ?? 0) + 0.5).toBeGreaterThanOrEqual((gather?.bar.x ?? 0) + (gather?.bar.width ?? 0));
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.locator(".waterfall summary", { hasText: "summarise" }).click();
    await page.locator(".waterfall details[open]").getByText("weft.step.name").waitFor();
    await checkStudioPage(page, "trace-axis");
  });

  it("lists the step that threw among the steps, and says at once that an unknown execution is not found", {
    timeout: 90_000,
  }, async () => {
    const ran = await callRpc(
      platform.weft.url,
      "workflows.run",
      { projectId, workflow: "flaky", input: {} },
      { token: ada.credential },
    );
    const { executionId } = ran.json as { executionId: string };
    await finished(executionId, "failed");
    await page.goto(`${platform.weft.url}/studio/executions/${executionId}`);
    const steps = page
      .getByRole("region", { name: "Steps" })
      .or(page.locator("section[aria-labelledby=steps-heading]"));
    await steps.getByRole("heading", { name: "charge", level: 3 }).waitFor();
    expect(await steps.getByRole("heading", { level: 3 }).allTextContents()).toEqual(["prepare", "charge"]);
    expect(await steps.textContent()).toContain("the card was declined");

    const unknown = "exe_00000000000000000000000000";
    const startedAt = Date.now();
    await page.goto(`${platform.weft.url}/studio/executions/${unknown}`);
    await page.getByRole("alert").getByText("No execution with this id.").waitFor({ timeout: 5_000 });
    // Shown from the first answer: no retries of the 404 while "Loading…" stays up.
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(await page.getByText(/^Loading/).count()).toBe(0);
  });

  it("tells a resumed attempt from the first run of its number", { timeout: 90_000 }, async () => {
    const ran = await callRpc(
      platform.weft.url,
      "workflows.run",
      { projectId, workflow: "napper", input: {} },
      { token: ada.credential },
    );
    const { executionId } = ran.json as { executionId: string };
    await expect.poll(async () => (await executionOf(executionId)).status, { timeout: 30_000 }).toBe("sleeping");
    platform.weft.clock.advance(2 * 60_000);
    await finished(executionId, "succeeded");
    platform.weft.clock.advance(-2 * 60_000);
    await page.goto(`${platform.weft.url}/studio/executions/${executionId}`);
    const attempts = page.locator("section[aria-labelledby=attempts-heading] li");
    await attempts.first().waitFor();
    const lines = (await attempts.allTextContents()).map((line) => line.split(" · ")[0]?.trim());
    expect(lines).toEqual(["#1 ok", "#1 resumed after a wait, ok"]);
  });

  it("names the actors of the audit log by address, never by a raw account id", { timeout: 60_000 }, async () => {
    await page.goto(`${platform.weft.url}/studio/audit-log`);
    await page.getByRole("cell", { name: "schedule.run" }).waitFor();
    const who = await page.locator("table tbody tr td:nth-child(3)").allTextContents();
    expect(who.length).toBeGreaterThan(0);
    expect(who.filter((cell) => /acc_/.test(cell))).toEqual([]);
    expect(who.some((cell) => cell.startsWith(email))).toBe(true);
  });

  it("keeps a table's times and badges on one line at 375 px, scrolling the table instead", {
    timeout: 60_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/schedules`);
    const region = page.getByRole("region", { name: "Executions started by weekday-mornings" });
    await region.waitFor();
    await page.setViewportSize({ width: 375, height: 812 });
    const boxes = await region
      .locator("td time, td .badge")
      .evaluateAll((elements) => elements.map((element) => element.getClientRects().length));
    expect(boxes.length).toBeGreaterThan(0);
    // One box per element: an inline element broken over lines has one per line.
    expect(boxes.every((count) => count === 1)).toBe(true);
    expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows usage for each of the last 30 days, zeros included, and names the projects", {
    timeout: 90_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/usage`);
    const chart = page.getByRole("img", { name: /^Executions per day: \d+ over 30 days$/ });
    await chart.waitFor();
    await page.getByRole("meter", { name: "Executions of Reports" }).waitFor();
    await page.getByRole("link", { name: "Reports" }).first().waitFor();
    await checkStudioPage(page, "usage-30-days");
    expect(problems.join("\n")).toBe("");
  });
});
