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
  signedInStudioContext,
  signInToStudio,
  studioInBrowser,
  studioScreenshots,
  type TestIdentity,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Approvals in Studio, in Chromium: a members-only wait token on the Approvals page and the
 * execution's page, approved there by a member (who is recorded), refused to someone outside the
 * workspace; and an execution page that follows its execution's status live, with no polling.
 */

const readmeImage = fileURLToPath(new URL("../../../docs/images/studio-approvals.png", import.meta.url));
const email = "ada@example.com";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

const expense = workflow({
  name: "expense",
  async run(input: { amount: number; requester: string }, ctx) {
    const answer = await ctx.waitForToken<{ approved?: boolean }>("approval", {
      timeout: "3d",
      title: "Expense of " + input.amount + " EUR",
      description: "Team lunch with the new hires. Approve it if it was agreed beforehand.",
      fields: [
        { label: "Amount", value: input.amount + " EUR" },
        { label: "Requested by", value: input.requester },
      ],
      approvers: "members",
    });
    return { approved: answer.ok && answer.data.approved === true };
  },
});

export default defineConfig({ workflows: [expense] });
`;

const manifest = { version: 1, workflows: [{ name: "expense" }] };

describe.skipIf(!hasChromium)("Approvals in Studio", () => {
  const platform = studioInBrowser();
  let context: BrowserContext;
  let page: Page;
  let ada: TestIdentity;
  let projectId: string;
  const problems: string[] = [];

  async function startExpense(amount: number): Promise<string> {
    const ran = await callRpc(
      platform.weft.url,
      "workflows.run",
      { projectId, workflow: "expense", input: { amount, requester: "grace@example.com" } },
      { token: ada.credential },
    );
    const { executionId } = ran.json as { executionId: string };
    await expect
      .poll(
        async () =>
          (
            (await callRpc(platform.weft.url, "workflows.getExecution", { executionId }, { token: ada.credential }))
              .json as {
              status: string;
            }
          ).status,
        { timeout: 20_000 },
      )
      .toBe("waiting");
    return executionId;
  }

  beforeAll(async () => {
    context = await signedInStudioContext(platform, email);
    ada = await createTestIdentity(platform.weft, email);
    ({ projectId } = await deployProject(platform.weft, ada, { name: "Expenses", source: configSource, manifest }));
    page = await context.newPage();
    collectPageProblems(page, problems);
  }, 120_000);

  it("lists what waits on the Approvals page, and a member approves it from the execution's page", {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/approvals`);
    await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
    await page.getByText(/^Nothing waits for an answer/).waitFor();
    await checkStudioPage(page, "approvals-empty");

    const first = await startExpense(120);
    const second = await startExpense(4800);
    // The page follows the workspace's live stream: the new tokens appear without a reload.
    const card = page.getByRole("article", { name: "Expense of 120 EUR" });
    await card.waitFor();
    await page.getByRole("article", { name: "Expense of 4800 EUR" }).waitFor();
    expect(await card.textContent()).toContain("Requested bygrace@example.com");
    expect(await card.textContent()).toContain("members of the workspace");
    await checkStudioPage(page, "approvals");
    await copyFile(join(studioScreenshots, "approvals-desktop.png"), readmeImage);

    await page.getByRole("link", { name: "Execution of expense" }).first().click();
    await page.waitForURL(`${platform.weft.url}/studio/executions/${first}`);
    await page.getByRole("heading", { name: "Wait tokens", level: 2 }).waitFor();
    await page.locator(".badge.status-waiting").waitFor();
    await checkStudioPage(page, "execution-waiting-token");
    await page.getByRole("button", { name: "Approve Expense of 120 EUR" }).click();
    await page.locator(".badge.status-succeeded").waitFor({ timeout: 20_000 });
    const token = page.getByRole("article", { name: "Expense of 120 EUR" });
    expect(await token.textContent()).toContain(`Answered by${email}`);
    expect(await token.getByRole("button").count()).toBe(0);
    expect(await page.locator("main").textContent()).toContain('"approved": true');

    await page.getByRole("link", { name: "Approvals", exact: true }).click();
    await page.getByRole("article", { name: "Expense of 4800 EUR" }).waitFor();
    // The list shown from the page's cache at first is read again on arrival: the answered token leaves it.
    await page.getByRole("article", { name: "Expense of 120 EUR" }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Reject Expense of 4800 EUR" }).click();
    await page.getByText(/^Nothing waits for an answer/).waitFor();
    const rejected = await callRpc(
      platform.weft.url,
      "workflows.getExecution",
      { executionId: second },
      { token: ada.credential },
    );
    expect(rejected.json).toMatchObject({ tokens: [{ status: "completed", completedBy: { email } }] });
  });

  it("refuses someone outside the workspace the token, on the page and through Studio's API", {
    timeout: 120_000,
  }, async () => {
    const executionId = await startExpense(75);
    const outsider = await signedInStudioContext(platform, "mallory@example.com");
    const theirs = await outsider.newPage();
    await theirs.goto(`${platform.weft.url}/studio/executions/${executionId}`);
    await theirs.getByRole("alert").waitFor();
    expect(await theirs.locator("main").textContent()).toContain("No execution with this id.");
    expect(await theirs.getByRole("button", { name: /^Approve/ }).count()).toBe(0);
    await theirs.goto(`${platform.weft.url}/studio/approvals`);
    await theirs.getByText(/^Nothing waits for an answer/).waitFor();

    const mallory = await signInToStudio(platform.weft.url, platform.smtp, "mallory@example.com");
    const refused = await fetch(`${platform.weft.url}/studio/rpc/workflows/answerToken`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: mallory.cookie, "x-weft-csrf": mallory.csrfToken },
      body: JSON.stringify({ json: { executionId, name: "approval", decision: "approve" } }),
    });
    expect(refused.status).toBe(404);
    const signedOut = await fetch(`${platform.weft.url}/studio/rpc/workflows/answerToken`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { executionId, name: "approval", decision: "approve" } }),
    });
    expect(signedOut.status).toBe(401);
    const still = await callRpc(
      platform.weft.url,
      "workflows.getExecution",
      { executionId },
      { token: ada.credential },
    );
    expect(still.json).toMatchObject({ status: "waiting", tokens: [{ status: "pending", completedBy: null }] });
    await outsider.close();
  });

  it("shows an execution's status change the moment it happens, without a reload or polling", {
    timeout: 120_000,
  }, async () => {
    const executionId = await startExpense(30);
    // The platform's clock stands still unless moved: the stream starts after what happened so far…
    platform.weft.clock.advance(60_000);
    await page.goto(`${platform.weft.url}/studio/executions/${executionId}`);
    await page.locator(".badge.status-waiting").waitFor();
    const reads: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/studio/rpc/workflows/getExecution")) reads.push(request.url());
    });
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => navigations.push(frame.url()));
    // Nothing changes: nothing is read again (no polling).
    await page.waitForTimeout(2_500);
    expect(reads).toEqual([]);

    // …and what happens next comes after its start. Answered elsewhere (the API): the page learns it from its stream.
    platform.weft.clock.advance(1_000);
    const answered = await callRpc(
      platform.weft.url,
      "workflows.answerToken",
      { executionId, name: "approval", decision: "approve" },
      { token: ada.credential },
    );
    expect(answered.status).toBe(200);
    await page.locator(".badge.status-succeeded").waitFor({ timeout: 15_000 });
    expect(navigations).toEqual([]);
    expect(reads.length).toBeGreaterThan(0);
    await checkStudioPage(page, "execution-live");

    // A project's executions: a new one appears, and its status changes, without a reload.
    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/executions`);
    const rows = page.locator("tbody tr");
    await rows.first().waitFor();
    navigations.length = 0;
    const before = await rows.count();
    platform.weft.clock.advance(1_000);
    const started = await startExpense(15);
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(before + 1);
    const row = page.getByRole("row", { name: new RegExp(started.slice(-8)) });
    await row.locator(".badge.status-waiting").waitFor();
    platform.weft.clock.advance(1_000);
    await callRpc(platform.weft.url, "workflows.cancelExecution", { executionId: started }, { token: ada.credential });
    await row.locator(".badge.status-cancelled").waitFor({ timeout: 15_000 });
    expect(navigations).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("answers the event stream only to a signed-in session from this origin", async () => {
    const ada = await signInToStudio(platform.weft.url, platform.smtp, email);
    const url = `${platform.weft.url}/studio/events?projectId=${projectId}`;
    expect((await fetch(url)).status).toBe(401);
    const crossSite = await fetch(url, { headers: { cookie: ada.cookie, "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    const otherOrigin = await fetch(url, { headers: { cookie: ada.cookie, origin: "https://evil.example" } });
    expect(otherOrigin.status).toBe(403);
    const twoScopes = await fetch(`${url}&workspaceId=wsp_00000000000000000000000000`, {
      headers: { cookie: ada.cookie },
    });
    expect(twoScopes.status).toBe(400);
    const foreign = await fetch(`${platform.weft.url}/studio/events?projectId=prj_00000000000000000000000000`, {
      headers: { cookie: ada.cookie, "sec-fetch-site": "same-origin" },
    });
    expect(foreign.status).toBe(404);
    const stream = new AbortController();
    const opened = await fetch(url, {
      headers: { cookie: ada.cookie, "sec-fetch-site": "same-origin" },
      signal: stream.signal,
    });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toContain("text/event-stream");
    stream.abort();
  });
});
