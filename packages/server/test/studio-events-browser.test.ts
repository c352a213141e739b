import {
  bundleConfig,
  callRpc,
  checkStudioPage,
  collectPageProblems,
  createTestIdentity,
  hasChromium,
  signedInStudioContext,
  studioInBrowser,
  type TestIdentity,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Studio's Events page, in Chromium through the platform: a project's events newest first, with
 * links to the executions each started and its data on demand, older ones a page further, a filter
 * by name, the test event form (and its refusals), and the empty state of a project with none.
 */

const email = "ada@example.com";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [workflow({ name: "fulfil", on: [{ event: "order.created" }], run: async (event: unknown) => event })],
});
`;

const manifest = { version: 1, workflows: [{ name: "fulfil", on: [{ event: "order.created" }] }] };

interface SentJson {
  id: string;
  executions: { workflow: string; executionId: string }[];
}

describe.skipIf(!hasChromium)("Events in Studio", () => {
  const platform = studioInBrowser();
  let context: BrowserContext;
  let page: Page;
  let ada: TestIdentity;
  let ordersId: string;
  let quietId: string;
  const problems: string[] = [];
  /** The events sent to Orders, oldest first. */
  const sent: SentJson[] = [];

  async function createProject(name: string): Promise<string> {
    const created = await callRpc(platform.weft.url, "projects.create", { name }, { token: ada.credential });
    return (created.json as { id: string }).id;
  }

  async function send(name: string, data: unknown): Promise<SentJson> {
    // One second apart, so that newest first is also the order of sending.
    platform.weft.clock.advance(1000);
    const answer = await callRpc(
      platform.weft.url,
      "events.send",
      { projectId: ordersId, name, data },
      { token: ada.credential },
    );
    expect(answer.status).toBe(200);
    return answer.json as SentJson;
  }

  const table = () => page.getByRole("region", { name: "Events", exact: true });
  const rows = () => table().locator("tbody tr");

  beforeAll(async () => {
    context = await signedInStudioContext(platform, email);
    ada = await createTestIdentity(platform.weft, email);
    ordersId = await createProject("Orders");
    quietId = await createProject("Quiet");
    const deployed = await callRpc(
      platform.weft.url,
      "deployments.create",
      { projectId: ordersId, manifest, bundle: await bundleConfig(configSource) },
      { token: ada.credential },
    );
    expect(deployed.status).toBe(200);
    for (let index = 0; index < 51; index += 1) sent.push(await send("inventory.counted", { shelf: index }));
    sent.push(await send("order.created", { orderId: "o-1", plan: "free" }));
    sent.push(await send("order.created", { orderId: "o-2", plan: "pro" }));
    page = await context.newPage();
    collectPageProblems(page, problems);
  }, 180_000);

  it("is in the navigation, and says what to do next for a project with no events", { timeout: 90_000 }, async () => {
    await page.goto(`${platform.weft.url}/studio/`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Events", exact: true }).click();
    await page.getByRole("heading", { name: "Events", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/studio/sent-events");

    await page.goto(`${platform.weft.url}/studio/projects/${quietId}/events`);
    await page.getByRole("heading", { name: "Events of Quiet", level: 1 }).waitFor();
    const empty = page.locator(".empty-state");
    await empty.waitFor();
    const words = (await empty.textContent()) ?? "";
    expect(words).toContain("No events yet");
    expect(words).toContain("weft events send order.created");
    expect(words).toContain("ctx.sendEvent");
    expect(await table().count()).toBe(0);
    await checkStudioPage(page, "events-empty");
  });

  it("lists a project's events newest first, links the executions they started, shows their data and pages on", {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/sent-events?project=${ordersId}`);
    await page.getByRole("heading", { name: "Events", level: 1 }).waitFor();
    await expect.poll(() => rows().count()).toBe(50);
    const ids = await table().locator("tbody tr td:first-child code.small-id").allTextContents();
    expect(ids).toEqual(
      sent
        .slice(-50)
        .reverse()
        .map((event) => event.id),
    );

    // The newest event started one execution: its row links to the execution's page.
    const newest = sent.at(-1);
    const [started] = newest?.executions ?? [];
    expect(started?.workflow).toBe("fulfil");
    const first = rows().first();
    expect(await first.locator("td").first().textContent()).toContain("order.created");
    const link = first.getByRole("link", { name: "fulfil" });
    expect(await link.getAttribute("href")).toBe(`/studio/executions/${started?.executionId}`);
    expect(await rows().nth(2).textContent()).toContain("nothing");

    // Its data stays folded until asked for.
    const data = first.getByRole("region", { name: `Data of ${newest?.id}` });
    expect(await data.isVisible()).toBe(false);
    await first.getByText("Data", { exact: true }).click();
    await data.waitFor();
    expect(JSON.parse((await data.textContent()) ?? "")).toEqual({ orderId: "o-2", plan: "pro" });
    await checkStudioPage(page, "events");

    // Scrolled to the end of the list, the next page loads by itself (or by its button).
    await page.getByRole("button", { name: "Older events" }).scrollIntoViewIfNeeded();
    await expect.poll(() => rows().count()).toBe(sent.length);
    expect(await table().locator("tbody tr td:first-child code.small-id").allTextContents()).toEqual(
      [...sent].reverse().map((event) => event.id),
    );
    expect(await page.getByRole("button", { name: "Older events" }).count()).toBe(0);

    await link.click();
    await page.getByRole("heading", { name: "fulfil", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/studio/executions/${started?.executionId}`);
  });

  it("filters by event name, naming a name the server would refuse, and switches projects", {
    timeout: 90_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/projects/${ordersId}/events`);
    await page.getByRole("heading", { name: "Events of Orders", level: 1 }).waitFor();
    await page.getByLabel("Event name").fill("order.created");
    await expect.poll(() => rows().count()).toBe(2);
    expect(new URL(page.url()).searchParams.get("name")).toBe("order.created");
    await page.getByLabel("Event name").fill("order.shipped");
    await page.locator(".empty-state").getByText("No order.shipped events.").waitFor();
    await page.getByLabel("Event name").fill("-bad");
    await page
      .getByRole("alert")
      .getByText(/^An event name starts with a letter or digit/)
      .waitFor();
    expect(await page.getByLabel("Event name").getAttribute("aria-invalid")).toBe("true");

    await page.goto(`${platform.weft.url}/studio/sent-events?project=${ordersId}`);
    await expect.poll(() => rows().count()).toBe(50);
    await page.getByLabel("Project").selectOption({ label: "Quiet" });
    await page
      .locator(".empty-state")
      .getByText(/^No events yet/)
      .waitFor();
    expect(new URL(page.url()).searchParams.get("project")).toBe(quietId);
  });

  it("sends a test event through events.send, and refuses a bad name or data before sending", {
    timeout: 90_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/projects/${ordersId}/events?name=order.created`);
    await expect.poll(() => rows().count()).toBe(2);
    await page.getByText("Send a test event").click();
    const name = page.getByLabel("Name", { exact: true });
    const data = page.getByLabel("Data (JSON)");
    await name.fill("order created");
    await data.fill("{orderId: o-3}");
    await page.getByRole("button", { name: "Send test event" }).click();
    const alert = page.getByRole("alert");
    await alert.getByText(/^The name starts with a letter or digit/).waitFor();
    await alert.getByText(/^The data is not JSON/).waitFor();
    expect(await rows().count()).toBe(2);

    await name.fill("order.created");
    await data.fill('{"orderId": "o-3", "plan": "pro"}');
    await page.getByRole("button", { name: "Send test event" }).click();
    const status = page.getByRole("status").filter({ hasText: /^Sent evn_/ });
    await status.waitFor();
    await status.getByRole("link", { name: "fulfil" }).waitFor();
    await expect.poll(() => rows().count()).toBe(3);
    const listed = await callRpc(
      platform.weft.url,
      "events.list",
      { projectId: ordersId, name: "order.created", limit: 1 },
      { token: ada.credential },
    );
    const [latest] = (listed.json as { data: { id: string; data: unknown; source: { kind: string } }[] }).data;
    expect(latest).toMatchObject({ data: { orderId: "o-3", plan: "pro" }, source: { kind: "api" } });
    expect(await status.textContent()).toContain(latest?.id ?? "missing");
    await checkStudioPage(page, "events-sent");
    expect(problems.join("\n")).toBe("");
  });
});
