import {
  deployManifest,
  executionRow,
  hasChromium,
  launchChromium,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Debian's chromium (`apt-get install -y chromium`); another build can be named with WEFT_CHROMIUM_PATH. */
const projectId = "prj_01jbrowserform0000000000000";

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";

const book = workflow({
  name: "book",
  async run(input: { name: string; guests: number }, ctx) {
    const table = await ctx.step("reserve", async () => (input.guests > 6 ? "long table" : "round table"));
    return { reservedFor: input.name, table };
  },
});

export default defineConfig({ workflows: [book] });
`;

describe.skipIf(!hasChromium)("a hosted form in a real browser", () => {
  let weft: TestPlatform;
  let browser: Browser;

  beforeAll(async () => {
    weft = await startTestPlatform();
    await deployManifest(
      weft,
      projectId,
      {
        version: 1,
        workflows: [{ name: "book" }],
        forms: [
          {
            name: "booking",
            workflow: "book",
            title: "Book a table",
            schema: {
              type: "object",
              properties: {
                name: { type: "string", title: "Name" },
                guests: { type: "integer", title: "Guests", minimum: 1, maximum: 12 },
                seating: { type: "string", enum: ["inside", "terrace"] },
                notes: { type: "string", maxLength: 1000 },
              },
              required: ["name", "guests"],
            },
          },
        ],
      },
      { configSource },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await weft?.stop();
  });

  it("shows a field error for an invalid value, keeps the values, then accepts the fixed submission, which runs", async () => {
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(`${weft.url}/triggers/forms/${projectId}/booking`);
    expect(await page.title()).toBe("Book a table");
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Guests").fill("0");
    await page.getByLabel("Seating").selectOption("terrace");
    await page.getByLabel("Notes").fill("A quiet corner, please.");
    await page.getByRole("button", { name: "Submit" }).click();

    await expect.poll(() => page.title()).toBe("Error: Book a table");
    const error = page.locator("#field-guests-error");
    expect(await error.textContent()).toMatch(/\S/);
    expect(await page.getByLabel("Guests").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("alert").textContent()).toContain("Guests");
    expect(await page.getByLabel("Name").inputValue()).toBe("Ada Lovelace");
    expect(await page.getByLabel("Seating").inputValue()).toBe("terrace");
    expect(await page.getByLabel("Notes").inputValue()).toBe("A quiet corner, please.");

    await page.getByLabel("Guests").fill("4");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#submission-reference").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/triggers/forms/${projectId}/booking/submitted`);
    expect(await page.locator("h1").textContent()).toBe("Thank you");
    const executionId = (await page.locator("#submission-reference").textContent()) ?? "";
    expect(await executionRow(weft, executionId)).toMatchObject({
      workflow: "book",
      triggerKind: "form",
      input: { name: "Ada Lovelace", guests: 4, seating: "terrace", notes: "A quiet corner, please." },
    });
    await expect
      .poll(async () => (await executionRow(weft, executionId))?.status, { timeout: 20_000, interval: 50 })
      .toBe("succeeded");
    expect((await executionRow(weft, executionId))?.output).toEqual({
      reservedFor: "Ada Lovelace",
      table: "round table",
    });
  });
});
