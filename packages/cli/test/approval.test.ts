import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

/** The approval workflow of the README, deployed and answered the way the README does it. */
const config = `import { defineConfig, workflow } from "@weft/sdk";

const expense = workflow({
  name: "expense",
  input: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  async run(input: { amount: number }, ctx) {
    const approval = await ctx.createToken("approval", { timeout: "3d" });
    // Send the link to whoever decides: here it is only logged and stored with the step.
    await ctx.step("ask", async () => {
      ctx.log.info(\`approve or reject \${input.amount} at \${approval.url}\`);
      return approval.url;
    });
    const answer = await ctx.waitForToken<{ approved?: boolean }>("approval");
    if (!answer.ok) return { status: "expired" };
    return { status: answer.data.approved === true ? "approved" : "rejected" };
  },
});

export default defineConfig({ workflows: [expense] });
`;

const signedIn = signedInPlatform("approver@example.com");
const { cli } = deployedProject(signedIn, "approvals", { "weft.config.ts": config });

describe("an approval workflow", () => {
  it("waits with its token shown by executions get, and goes on once the token's URL is answered", async () => {
    const started = await cli(["workflows", "run", "expense", "--input", '{"amount": 120}', "--json"]);
    expect(started.code).toBe(0);
    const { executionId } = parseJson<{ executionId: string }>(started);
    while (
      parseJson<{ status: string }>(await cli(["executions", "get", executionId, "--json"])).status !== "waiting"
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const shown = await cli(["executions", "get", executionId]);
    expect(shown.stdout).toMatch(/status\s+waiting/);
    expect(shown.stdout).toMatch(/TOKEN\s+STATUS\s+EXPIRES\s+FINISHED\napproval\s+pending\s+\S+/);

    const json = (await cli(["executions", "get", executionId, "--json"])).stdout;
    const url = /http[^"]*\/triggers\/tokens\/wtk_[A-Za-z0-9_-]*/.exec(json)?.[0];
    if (url === undefined) throw new Error("no token URL in the execution");
    const answered = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"approved": true}',
    });
    expect(answered.status).toBe(202);

    const watched = await cli(["executions", "watch", executionId, "--json"]);
    expect(watched.code).toBe(0);
    expect(parseJson(watched)).toMatchObject({ status: "succeeded", output: { status: "approved" } });
  });
});
