import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("events@example.com");

/** The README's events example, as written there. */
const readmeConfig = `import { defineConfig, workflow } from "@weft/sdk";

const fulfil = workflow({
  name: "fulfil",
  on: [{ event: "order.created", if: { path: "$.data.plan", equals: "pro" } }],
  cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.data.orderId" } }],
  async run(event: { data: { orderId: string } }, ctx) {
    const { orderId } = event.data;
    const paid = await ctx.waitForEvent("payment", {
      event: "order.paid",
      match: { path: "$.data.orderId", equals: orderId },
      timeout: "1d",
    });
    if (!paid.ok) return { orderId, status: "unpaid" };
    await ctx.sendEvent("announce", { name: "order.fulfilled", data: { orderId } });
    return { orderId, status: "fulfilled" };
  },
});

export default defineConfig({ workflows: [fulfil] });
`;

interface SentJson {
  id: string;
  duplicate: boolean;
  executions: { workflow: string; executionId: string }[];
  resumed: number;
  cancelled: number;
}

const { cli } = deployedProject(signedIn, "events", { "weft.config.ts": readmeConfig });

async function statusOf(executionId: string): Promise<string> {
  return parseJson<{ status: string }>(await cli(["executions", "get", executionId, "--json"])).status;
}

async function until(executionId: string, status: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await statusOf(executionId)) !== status) {
    if (Date.now() > deadline) throw new Error(`${executionId} did not reach ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("weft events", () => {
  it("runs the README's example: a pro order starts fulfil, its payment resumes it, and it announces itself", async () => {
    const free = parseJson<SentJson>(
      await cli(["events", "send", "order.created", "--data", '{"orderId": "o-1", "plan": "free"}', "--json"]),
    );
    expect(free.executions).toEqual([]);
    const created = await cli(["events", "send", "order.created", "--data", '{"orderId": "o-2", "plan": "pro"}']);
    expect(created.code, created.stderr).toBe(0);
    const executionId = /Started (exe_\w+) \(fulfil\)/.exec(created.stdout)?.[1] ?? "";
    await until(executionId, "waiting");

    const paid = await cli(["events", "send", "order.paid", "--data", '{"orderId": "o-2"}']);
    expect(paid.stdout).toContain("Resumed 1 waiting execution(s).");
    const watched = await cli(["executions", "watch", executionId]);
    expect(watched.stdout).toContain('output: {"status":"fulfilled","orderId":"o-2"}');

    const listed = parseJson<{ data: { name: string; source: { kind: string } }[] }>(
      await cli(["events", "list", "--json"]),
    );
    // The manual clock stands still: all four share one instant, which orders them no further.
    expect(listed.data.map((event) => `${event.name} ${event.source.kind}`).sort()).toEqual([
      "order.created api",
      "order.created api",
      "order.fulfilled workflow",
      "order.paid api",
    ]);
  });

  it("cancels the order's execution on order.cancelled", async () => {
    const created = parseJson<SentJson>(
      await cli(["events", "send", "order.created", "--data", '{"orderId": "o-3", "plan": "pro"}', "--json"]),
    );
    const executionId = created.executions[0]?.executionId ?? "";
    await until(executionId, "waiting");
    const cancelled = parseJson<SentJson>(
      await cli(["events", "send", "order.cancelled", "--data", '{"orderId": "o-3"}', "--json"]),
    );
    expect(cancelled.cancelled).toBe(1);
    expect(await statusOf(executionId)).toBe("cancelled");
  });

  it("answers a send with a used id as the first send, starting nothing", async () => {
    const args = ["events", "send", "order.created", "--data", '{"orderId": "o-4", "plan": "pro"}', "--id", "o-4"];
    const first = parseJson<SentJson>(await cli([...args, "--json"]));
    const again = await cli(args);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Already sent ${first.id}`);
  });

  it("refuses a bad name and data that is not JSON, naming them", async () => {
    const badName = await cli(["events", "send", "order created!"]);
    expect(badName.code).not.toBe(0);
    expect(badName.stderr).toContain("name");
    const badData = await cli(["events", "send", "order.created", "--data", "{not json"]);
    expect(badData.code).not.toBe(0);
    expect(badData.stderr).toContain("--data is not valid JSON");
  });
});
