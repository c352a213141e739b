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
  type TestIdentity,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Child workflows, tags and the `expired` status in Studio, in Chromium: a parent's page links to
 * its child and the child's back to it, tags show as chips on both pages and in the list, the list
 * filters by a tag from the URL's query, and an expired run reads as one.
 */

const email = "ada@example.com";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

const charge = workflow({
  name: "charge",
  async run(input: { cents: number }, ctx) {
    return ctx.step("charge", async () => ({ charged: input.cents }));
  },
});

const checkout = workflow({
  name: "checkout",
  async run(input: { cents: number }, ctx) {
    const charged = await ctx.invoke("charge-card", charge, { cents: input.cents });
    return { charged };
  },
});

const receipt = workflow({
  name: "receipt",
  async run(_input: unknown, ctx) {
    await ctx.sleep("settle", "1m");
    return ctx.step("send", async () => "sent");
  },
});

const dispatch = workflow({
  name: "dispatch",
  async run(_input: unknown, ctx) {
    return { receiptId: await ctx.start("receipt", receipt, {}) };
  },
});

export default defineConfig({ workflows: [charge, checkout, receipt, dispatch] });
`;

const manifest = {
  version: 1,
  workflows: [{ name: "charge" }, { name: "checkout" }, { name: "receipt" }, { name: "dispatch" }],
};

interface ExecutionRead {
  status: string;
  parentExecutionId: string | null;
  children: { id: string; workflow: string; status: string }[];
  tags: string[];
}

describe.skipIf(!hasChromium)("Child workflows, tags and expired runs in Studio", () => {
  const platform = studioInBrowser({ clock: realTimeClock() });
  let context: BrowserContext;
  let page: Page;
  let ada: TestIdentity;
  let projectId: string;
  let parentId: string;
  let childId: string;
  let untaggedId: string;
  let untaggedChildId: string;
  let expiredId: string;
  const problems: string[] = [];

  async function read(executionId: string): Promise<ExecutionRead> {
    const answer = await callRpc(
      platform.weft.url,
      "workflows.getExecution",
      { executionId },
      { token: ada.credential },
    );
    return answer.json as ExecutionRead;
  }

  async function run(workflow: string, options: Record<string, unknown> = {}): Promise<string> {
    const ran = await callRpc(
      platform.weft.url,
      "workflows.run",
      { projectId, workflow, input: { cents: 250 }, ...options },
      { token: ada.credential },
    );
    expect(ran.status).toBe(200);
    return (ran.json as { executionId: string }).executionId;
  }

  async function ends(executionId: string, status: string): Promise<ExecutionRead> {
    await expect.poll(async () => (await read(executionId)).status, { timeout: 30_000 }).toBe(status);
    return read(executionId);
  }

  /** The ids of the executions the list shows, from their links. */
  async function listedIds(): Promise<string[]> {
    const hrefs = await page
      .getByRole("region", { name: "Executions" })
      .locator('a[href*="/executions/exe_"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
    return hrefs.map((href) => href.split("/").at(-1) ?? "").sort();
  }

  beforeAll(async () => {
    context = await signedInStudioContext(platform, email);
    page = await context.newPage();
    collectPageProblems(page, problems);
    ada = await createTestIdentity(platform.weft, email);
    ({ projectId } = await deployProject(platform.weft, ada, { name: "Shop", source: configSource, manifest }));
  }, 120_000);

  it("runs a tagged parent that invokes a child, an untagged one, and one that expires", {
    timeout: 120_000,
  }, async () => {
    parentId = await run("checkout", { tags: ["order-42", "team:eu"] });
    untaggedId = await run("checkout");
    const parent = await ends(parentId, "succeeded");
    untaggedChildId = (await ends(untaggedId, "succeeded")).children[0]?.id ?? "";
    expect(parent.children).toHaveLength(1);
    childId = parent.children[0]?.id ?? "";
    expect((await read(childId)).parentExecutionId).toBe(parentId);

    // Due in a minute and to be started within a second of it: past both, the worker ends it expired.
    expiredId = await run("charge", { delay: "1m", ttl: "1s", tags: ["order-42"] });
    platform.weft.clock.advance(5 * 60_000);
    await ends(expiredId, "expired");
  });

  it("links a parent to its child and the child back to its parent, with the tags as chips", {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/executions/${parentId}`);
    await page.getByRole("heading", { name: "Execution of checkout", level: 1 }).waitFor();
    const tags = page.getByRole("list", { name: "Tags" });
    expect(await tags.getByRole("listitem").allTextContents()).toEqual(["order-42", "team:eu"]);
    const children = page.getByRole("region", { name: "Child executions" });
    const childLink = children.getByRole("link", { name: "charge" });
    expect(await childLink.getAttribute("href")).toBe(`/studio/executions/${childId}`);
    await children.locator(".badge.status-succeeded").waitFor();
    await checkStudioPage(page, "execution-parent");

    await childLink.click();
    await page.getByRole("heading", { name: "Execution of charge", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/studio/executions/${childId}`);
    expect(await page.getByRole("region", { name: "Child executions" }).count()).toBe(0);
    const parentLink = page.getByRole("link", { name: parentId });
    await checkStudioPage(page, "execution-child");

    await parentLink.click();
    await page.getByRole("heading", { name: "Execution of checkout", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/studio/executions/${parentId}`);

    // A tag's chip leads to the project's executions holding it.
    await page.getByRole("link", { name: "Executions tagged team:eu" }).click();
    await page.getByRole("heading", { name: "Executions", level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get("tag")).toBe("team:eu");
    await expect.poll(listedIds).toEqual([parentId]);
    expect(problems).toEqual([]);
  });

  it("filters the executions by a tag kept in the URL, shows each run's tags, and names a bad tag", {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/executions`);
    await page.getByRole("heading", { name: "Executions", level: 1 }).waitFor();
    await expect.poll(listedIds).toEqual([childId, expiredId, parentId, untaggedChildId, untaggedId].sort());
    await page
      .getByRole("list", { name: `Tags of checkout ${parentId.slice(-8)}` })
      .getByText("team:eu")
      .waitFor();

    await page.getByRole("searchbox", { name: "Tag" }).fill("order-42");
    await expect.poll(listedIds).toEqual([expiredId, parentId].sort());
    expect(new URL(page.url()).searchParams.get("tag")).toBe("order-42");
    // The API agrees with what the page shows.
    const listed = await callRpc(
      platform.weft.url,
      "workflows.listExecutions",
      { projectId, tags: ["order-42"] },
      { token: ada.credential },
    );
    expect((listed.json as { results: { id: string }[] }).results.map((row) => row.id).sort()).toEqual(
      [expiredId, parentId].sort(),
    );
    await checkStudioPage(page, "executions-by-tag");

    // Read from the URL when the page opens, beside the status filter, which names `expired` apart.
    await page.goto(`${platform.weft.url}/studio/projects/${projectId}/executions?tag=order-42&status=expired`);
    await expect.poll(listedIds).toEqual([expiredId]);
    expect(await page.getByRole("searchbox", { name: "Tag" }).inputValue()).toBe("order-42");
    expect(await page.getByLabel("Status").locator("option:checked").textContent()).toBe("expired (never started)");
    const badge = page.getByRole("region", { name: "Executions" }).locator(".badge.status-expired");
    expect(await badge.textContent()).toBe("expired (never started)");
    const borderStyle = await page.evaluate(
      "getComputedStyle(document.querySelector('.table-scroll .badge.status-expired')).borderStyle",
    );
    expect(borderStyle).toBe("dashed");
    await checkStudioPage(page, "executions-expired");

    await page.getByRole("searchbox", { name: "Tag" }).fill("no spaces!");
    await page.getByRole("alert").getByText("A tag holds only letters, digits and _ . : / = -").waitFor();
    expect(await page.getByRole("searchbox", { name: "Tag" }).getAttribute("aria-invalid")).toBe("true");
    // A bad tag is not sent: the list is filtered by status alone.
    await expect.poll(listedIds).toEqual([expiredId]);
    expect(problems).toEqual([]);
  });

  it("shows a started child's status change on its finished parent's page, live", { timeout: 120_000 }, async () => {
    const dispatchId = await run("dispatch");
    const dispatched = await ends(dispatchId, "succeeded");
    const receiptId = dispatched.children[0]?.id ?? "";
    await ends(receiptId, "sleeping");
    await page.goto(`${platform.weft.url}/studio/executions/${dispatchId}`);
    const children = page.getByRole("region", { name: "Child executions" });
    await children.locator(".badge.status-sleeping").waitFor();
    expect(await children.getByRole("link", { name: "receipt" }).getAttribute("href")).toBe(
      `/studio/executions/${receiptId}`,
    );
    platform.weft.clock.advance(2 * 60_000);
    // The page is not reloaded: the child's end reaches it through the project's event stream.
    await children.locator(".badge.status-succeeded").waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
  });
});
