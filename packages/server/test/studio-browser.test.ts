import {
  acceptInvitationLink,
  bundleConfig,
  callRpc,
  checkStudioPage,
  collectPageProblems,
  createTestIdentity,
  hasChromium,
  invitationLinkIn,
  signInToStudio,
  studioContext,
  studioInBrowser,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

const email = "ada@example.com";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

const greet = workflow({
  name: "greet",
  async run(input: { name: string }, ctx) {
    const greeting = await ctx.step("compose", async () => "Hello, " + input.name);
    ctx.log.info("greeted", { name: input.name });
    return { greeting };
  },
});

export default defineConfig({ workflows: [greet] });
`;

const manifest = {
  version: 1,
  workflows: [
    {
      name: "greet",
      inputSchema: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] },
    },
  ],
  forms: [
    {
      name: "greeting",
      workflow: "greet",
      title: "Say hello",
      schema: { type: "object", properties: { name: { type: "string", title: "Name" } }, required: ["name"] },
    },
  ],
  webhooks: [],
};

describe.skipIf(!hasChromium)("Studio in a real browser", () => {
  const platform = studioInBrowser();
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    context = await studioContext(platform.browser);
    page = await context.newPage();
    collectPageProblems(page, problems);
  });

  it("signs in through the mail and returns to the page that was asked for", { timeout: 120_000 }, async () => {
    await page.goto(`${platform.weft.url}/studio/projects`);
    await page.getByLabel("Email").waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/projects");
    await checkStudioPage(page, "sign-in");

    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByLabel("6-digit code").waitFor();
    expect(await page.locator("form").textContent()).toContain(`Check your mail at ${email}`);

    // A wrong code is refused, and the page stays on sign-in.
    await page.getByLabel("6-digit code").fill("000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio/sign-in");

    // The mail's link, opened in this browser, signs it in: the tab that asked goes on by itself.
    // The mail goes out over real SMTP: on a loaded machine it can take longer than poll's 1 s default.
    await expect
      .poll(() => platform.smtp.received.some((mail) => mail.to.includes(email)), { timeout: 30_000 })
      .toBe(true);
    const mail = platform.smtp.received.findLast((message) => message.to.includes(email))?.raw ?? "";
    expect(mail).toContain("Subject: Sign in to Weft Studio");
    const approval = await context.newPage();
    await approval.goto(platform.smtp.approvalLinkFor(email));
    await approval.getByRole("heading", { name: "Sign in to Weft Studio?" }).waitFor();
    await approval.getByRole("button", { name: "Sign in" }).click();
    await approval.waitForURL(`${platform.weft.url}/studio/`);
    await approval.close();

    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio/projects");
    // The heading comes before the list has loaded: wait for the answer, not the frame.
    await page.getByText(/^No projects in/).waitFor();
    await checkStudioPage(page, "projects-empty");
  });

  it("shows a project deployed through the API, runs its form, watches the execution succeed and opens its trace", {
    timeout: 180_000,
  }, async () => {
    const ada = await createTestIdentity(platform.weft, email);
    const created = await callRpc(
      platform.weft.url,
      "projects.create",
      { name: "Greetings" },
      { token: ada.credential },
    );
    const projectId = (created.json as { id: string }).id;
    const bundle = await bundleConfig(configSource);
    const deployed = await callRpc(
      platform.weft.url,
      "deployments.create",
      { projectId, manifest, bundle },
      { token: ada.credential },
    );
    expect(deployed.status).toBe(200);

    await page.getByRole("link", { name: "Overview", exact: true }).click();
    await page.getByRole("link", { name: "Greetings" }).first().waitFor();
    await checkStudioPage(page, "overview");

    await page.getByRole("link", { name: "Projects", exact: true }).click();
    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    await page.getByRole("cell", { name: "Greetings" }).waitFor();
    await checkStudioPage(page, "projects");
    await page.getByRole("link", { name: "Greetings" }).click();
    await page.getByRole("heading", { name: "Greetings", level: 1 }).waitFor();
    await page.getByRole("heading", { name: "greet", exact: true, level: 3 }).waitFor();
    const formUrl = (await page.locator(".copyable .url").first().textContent()) ?? "";
    expect(formUrl).toContain("/greeting");
    await checkStudioPage(page, "project");

    // The run editor checks the input against the workflow's JSON Schema before sending it.
    await page.getByRole("button", { name: "Run greet" }).click();
    await page.getByLabel("Input of greet (JSON)").fill('{"name": ""}');
    await page.getByRole("button", { name: "Start execution" }).click();
    expect(await page.getByRole("alert").first().textContent()).toContain("input/name");
    const executions = await callRpc(
      platform.weft.url,
      "workflows.listExecutions",
      { projectId },
      { token: ada.credential },
    );
    expect(executions.json).toMatchObject({ totalCount: 0 });

    const form = await context.newPage();
    await form.goto(formUrl);
    await form.getByLabel("Name").fill("Grace");
    await form.getByRole("button", { name: "Submit" }).click();
    await form.locator("#submission-reference").waitFor();
    const executionId = (await form.locator("#submission-reference").textContent())?.trim() ?? "";
    await form.close();

    await page.getByRole("link", { name: "All executions" }).first().click();
    await page.getByRole("link", { name: "greet" }).first().waitFor();
    await checkStudioPage(page, "executions");
    await page.getByRole("link", { name: "greet" }).first().click();
    await page.waitForURL(`${platform.weft.url}/studio/executions/${executionId}`);
    // The list's badges may still be on screen when the URL changes; the status region is the execution page's.
    await page.getByRole("region", { name: "Status" }).locator(".badge.status-succeeded").waitFor({ timeout: 20_000 });
    expect(await page.locator("main").textContent()).toContain('"greeting": "Hello, Grace"');
    await page.getByRole("heading", { name: "compose", exact: true, level: 3 }).waitFor();
    expect(await page.locator(".logs").first().textContent()).toContain("greeted");
    await checkStudioPage(page, "execution");

    await page.getByRole("link", { name: "Trace", exact: true }).click();
    await page.getByRole("heading", { name: "Trace", level: 1 }).waitFor();
    // The title shows while the trace loads; its spans come with the answer.
    await page.getByRole("list", { name: "Spans" }).waitFor();
    const spans = await page.locator(".waterfall .span-name").allTextContents();
    expect(spans.some((name) => name.includes("compose"))).toBe(true);
    await checkStudioPage(page, "trace");
  });

  it("adds a project's integration with its secret masked, replaces the secret, and deletes it after a confirmation", {
    timeout: 90_000,
  }, async () => {
    await page.getByRole("link", { name: "Projects", exact: true }).click();
    await page.getByRole("link", { name: "Greetings" }).click();
    await page.getByRole("heading", { name: "Integrations", level: 2 }).waitFor();
    const form = page.getByRole("form", { name: "Add an integration" });
    await form.getByLabel("Name").fill("stripe");
    await form.getByLabel("Secret (value)").fill("sk_live_first_value_1234");
    await form.getByRole("button", { name: "Add integration" }).click();
    const row = page.getByRole("row", { name: /stripe/ });
    await row.getByText("••••1234").waitFor();
    expect(await page.locator("main").textContent()).not.toContain("sk_live_first_value_1234");
    await checkStudioPage(page, "project-integrations");

    await row.getByLabel("New value for stripe").fill("sk_live_second_value_9876");
    await row.getByRole("button", { name: "Replace" }).click();
    await row.getByText("••••9876").waitFor();

    await row.getByRole("button", { name: "Delete stripe…" }).click();
    await row.getByRole("button", { name: "Yes, delete stripe" }).click();
    await page.getByText("No integrations yet").waitFor();
  });

  it("shows usage against the plan", { timeout: 60_000 }, async () => {
    await page.getByRole("link", { name: "Usage", exact: true }).click();
    await page.getByRole("heading", { name: /^This month on the/ }).waitFor();
    await page.getByRole("heading", { name: /^Per project/ }).waitFor();
    await page.getByRole("meter", { name: "Executions of Greetings" }).waitFor();
    await page.getByRole("link", { name: "Greetings" }).first().waitFor();
    await checkStudioPage(page, "usage");
  });

  it("answers an address it has no page for with a page saying so, inside Studio's frame", {
    timeout: 60_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/no-such-page`);
    await page.getByRole("heading", { name: "Page not found", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Usage", exact: true }).waitFor();
    await checkStudioPage(page, "not-found");
    await page.getByRole("main").getByRole("link", { name: "overview", exact: true }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  });

  it("lists Studio's own session among the agents", { timeout: 60_000 }, async () => {
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await page.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
    await page
      .getByRole("button", { name: /^Revoke / })
      .first()
      .waitFor();
    await checkStudioPage(page, "agents");
  });

  it("invites a member to a team workspace and reads the invitation in the audit log", {
    timeout: 90_000,
  }, async () => {
    const ada = await createTestIdentity(platform.weft, email);
    const team = await callRpc(
      platform.weft.url,
      "access.createWorkspace",
      { name: "Kitchen" },
      { token: ada.credential },
    );
    expect(team.status).toBe(200);
    await page.reload();
    await page.getByLabel("Workspace").selectOption({ label: "Kitchen · owner" });
    await page.getByRole("link", { name: "Members", exact: true }).click();
    await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    await page.getByLabel("Email to invite").fill("not an address");
    await page.getByRole("button", { name: "Invite" }).click();
    // The browser refuses the address before any call; no invitation is made.
    expect(await page.locator("input[type=email]:invalid").count()).toBe(1);
    expect(await page.getByRole("button", { name: /^Cancel invitation/ }).count()).toBe(0);
    await page.getByLabel("Email to invite").fill("grace@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByRole("button", { name: "Cancel invitation of grace@example.com" }).waitFor();
    await checkStudioPage(page, "members");

    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await page.getByRole("cell", { name: "member.invited" }).waitFor();
    await page.getByLabel("Action").fill("workspace.created");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("cell", { name: "member.invited" }).waitFor({ state: "detached" });
    await page.getByRole("cell", { name: "workspace.created" }).waitFor();
    await checkStudioPage(page, "audit-log");
  });

  it("shows a viewer no write buttons", { timeout: 90_000 }, async () => {
    const ada = await createTestIdentity(platform.weft, email);
    const workspaces = await callRpc(platform.weft.url, "access.listWorkspaces", {}, { token: ada.credential });
    const kitchen = (workspaces.json as { results: { id: string; name: string }[] }).results.find(
      (workspace) => workspace.name === "Kitchen",
    );
    const created = await callRpc(
      platform.weft.url,
      "projects.create",
      { name: "Pantry", workspaceId: kitchen?.id },
      { token: ada.credential },
    );
    const projectId = (created.json as { id: string }).id;
    const bundle = await bundleConfig(configSource);
    await callRpc(platform.weft.url, "deployments.create", { projectId, manifest, bundle }, { token: ada.credential });
    const invitation = platform.smtp.received.find((mail) => mail.to.includes("grace@example.com"));
    expect((await acceptInvitationLink(invitationLinkIn(invitation?.raw ?? ""))).status).toBe(200);

    const grace = await signInToStudio(platform.weft.url, platform.smtp, "grace@example.com");
    const [name = "", value = ""] = grace.cookie.split("=");
    const viewerContext = await platform.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await viewerContext.addCookies([{ name, value, url: `${platform.weft.url}/studio` }]);
    const viewer = await viewerContext.newPage();
    await viewer.goto(`${platform.weft.url}/studio/projects/${projectId}`);
    await viewer.getByRole("heading", { name: "greet", exact: true, level: 3 }).waitFor();
    expect(await viewer.locator("main").textContent()).toContain("You can look but not change anything");
    // The role was found (not merely missing, which hides the buttons too).
    expect(await viewer.getByRole("option", { name: /^Kitchen · viewer$/ }).count()).toBe(1);
    expect(await viewer.getByRole("button", { name: /^Run / }).count()).toBe(0);
    // And the server refuses the write the page does not offer.
    const refused = await fetch(`${platform.weft.url}/studio/rpc/workflows/run`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: grace.cookie, "x-weft-csrf": grace.csrfToken },
      body: JSON.stringify({ json: { projectId, workflow: "greet", input: { name: "Grace" } } }),
    });
    expect(refused.status).toBe(403);
    // The Events page lists, and offers no test event to send.
    await viewer.goto(`${platform.weft.url}/studio/projects/${projectId}/events`);
    await viewer.getByRole("heading", { name: "Events of Pantry", level: 1 }).waitFor();
    await viewer
      .locator(".empty-state")
      .getByText(/^No events yet/)
      .waitFor();
    expect(await viewer.getByText("Send a test event").count()).toBe(0);
    await viewer.getByRole("link", { name: "Members", exact: true }).click();
    await viewer.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    expect(await viewer.getByRole("button", { name: "Invite" }).count()).toBe(0);
    await viewerContext.close();
  });

  it("revokes Studio's own agent: its session is refused from the next call, back to sign-in", async () => {
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await page
      .getByRole("button", { name: /^Revoke Weft Studio/ })
      .first()
      .click();
    // The first click only asks: nothing is revoked until the second, explicit button.
    expect(new URL(page.url()).pathname).toBe("/studio/agents");
    await page
      .getByRole("button", { name: /^Yes, revoke Weft Studio/ })
      .first()
      .click();
    await page.getByLabel("Email").waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/agents");
  });

  it("sends a visitor whose session is gone back to sign-in, keeping the page", async () => {
    await context.clearCookies();
    await page.goto(`${platform.weft.url}/studio/agents`);
    await page.getByLabel("Email").waitFor();
    expect(new URL(page.url()).searchParams.get("next")).toBe("/agents");
    expect(problems).toEqual([]);
  });
});
