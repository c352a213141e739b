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
    const answer = await ctx.waitForToken<{ approved?: boolean }>("approval", {
      timeout: "3d",
      title: \`Expense of \${input.amount} EUR\`,
      description: "Approve it if it was agreed beforehand.",
      fields: [{ label: "Amount", value: \`\${input.amount} EUR\` }],
      // Answered in Studio (Approvals) or with \`weft executions answer\`, never by whoever finds the URL.
      approvers: "members",
    });
    if (!answer.ok) return { status: "expired" };
    return { status: answer.data.approved === true ? "approved" : "rejected" };
  },
});

export default defineConfig({ workflows: [expense] });
`;

const signedIn = signedInPlatform("approver@example.com");
const { cli } = deployedProject(signedIn, "approvals", { "weft.config.ts": config });

describe("an approval workflow", () => {
  it("waits with its token's title and approvers shown by executions get, and goes on once a member answers", async () => {
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
    expect(shown.stdout).toMatch(
      /TOKEN\s+TITLE\s+STATUS\s+APPROVERS\s+ANSWERED BY\s+EXPIRES\s+FINISHED\napproval\s+Expense of 120 EUR\s+pending\s+members\s+\S+/,
    );
    expect(shown.stdout).toContain("token approval: Approve it if it was agreed beforehand.\n  Amount: 120 EUR");
    // No URL is logged or stored anywhere a reader of the project sees.
    expect((await cli(["executions", "get", executionId, "--json"])).stdout).not.toContain("/triggers/tokens/");

    const neither = await cli(["executions", "answer", executionId, "approval"]);
    expect(neither.code).not.toBe(0);
    expect(neither.stderr).toContain("--approve or --reject");
    const answered = await cli(["executions", "answer", executionId, "approval", "--approve"]);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain(`Approved approval of ${executionId}.`);

    const watched = await cli(["executions", "watch", executionId, "--json"]);
    expect(watched.code).toBe(0);
    expect(parseJson(watched)).toMatchObject({ status: "succeeded", output: { status: "approved" } });
    const after = await cli(["executions", "get", executionId]);
    expect(after.stdout).toMatch(/approval\s+Expense of 120 EUR\s+completed\s+members\s+approver@example.com/);
  });
});
