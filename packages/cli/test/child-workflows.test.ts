import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("children@example.com");

/** The README's child workflows example, read from the README itself so that it runs as written. */
function readmeConfig(): string {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Child workflows"));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (example === undefined) throw new Error("the README's Child workflows section has no example");
  return example;
}

const { cli } = deployedProject(signedIn, "children", { "weft.config.ts": readmeConfig() });

interface ExecutionJson {
  id: string;
  traceId: string;
  status: string;
  output: unknown;
  parentExecutionId: string | null;
  children: { id: string; workflow: string; status: string }[];
  tags: string[];
}

async function execution(id: string): Promise<ExecutionJson> {
  return parseJson<ExecutionJson>(await cli(["executions", "get", id, "--json"]));
}

async function ended(id: string): Promise<ExecutionJson> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await execution(id);
    if (["succeeded", "failed", "cancelled", "expired"].includes(found.status)) return found;
    if (Date.now() > deadline) throw new Error(`${id} did not end: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("child workflows from the CLI", () => {
  it("runs the README's example; executions get shows the parent and its children, list filters by tag", async () => {
    const started = parseJson<{ executionId: string }>(
      await cli(["workflows", "run", "checkout", "--input", '{"items": [100, 250]}', "--json"]),
    );
    const checkout = await ended(started.executionId);
    expect(checkout.status).toBe("succeeded");
    const output = checkout.output as { first: unknown; count: number; receiptId: string };
    expect(output.first).toEqual({ charged: 100 });
    expect(output.count).toBe(2);
    // charge-first, charge-0, charge-1 and the receipt.
    expect(checkout.children.map((child) => child.workflow)).toEqual(["charge", "charge", "charge", "charge"]);
    const receipt = await ended(output.receiptId);
    expect(receipt).toMatchObject({ status: "succeeded", parentExecutionId: checkout.id, tags: ["receipt"] });

    const shown = await cli(["executions", "get", output.receiptId]);
    expect(shown.stdout).toMatch(new RegExp(`parent\\s+${checkout.id}`));
    expect(shown.stdout).toMatch(/tags\s+receipt/);
    expect((await cli(["executions", "get", checkout.id])).stdout).toContain(`${output.receiptId} (charge, succeeded)`);

    // One trace holds the parent and its children: listed once, its tree holding every child's execution.
    const traces = parseJson<{ data: { traceId: string; executionId: string }[] }>(
      await cli(["traces", "list", "--json"]),
    );
    const listedTraces = traces.data.filter((trace) => trace.traceId === checkout.traceId);
    expect(listedTraces.map((trace) => trace.executionId)).toEqual([checkout.id]);
    const tree = (await cli(["traces", "get", checkout.traceId])).stdout;
    expect(tree.match(/execution charge/g)).toHaveLength(4);
    expect(tree).toContain("invoke charge-first");

    const tagged = parseJson<{ results: { id: string }[] }>(
      await cli(["executions", "list", "--tag", "receipt", "--json"]),
    );
    expect(tagged.results.map((row) => row.id)).toEqual([output.receiptId]);
  });

  it("starts a run delayed and tagged, and lists it by its tags", async () => {
    const started = parseJson<{ executionId: string }>(
      await cli(["workflows", "run", "charge", "--input", '{"cents": 5}', "--delay", "1h", "--tag", "later", "--json"]),
    );
    const queued = await execution(started.executionId);
    expect(queued).toMatchObject({ status: "queued", tags: ["later"] });
    const tagged = parseJson<{ results: { id: string }[] }>(
      await cli(["executions", "list", "--tag", "later", "--json"]),
    );
    expect(tagged.results.map((row) => row.id)).toEqual([started.executionId]);
  });

  it("lists by several tags, those holding all of them, and refuses more tags than a run may hold", async () => {
    const run = async (tags: string[]) =>
      parseJson<{ executionId: string }>(
        await cli([
          "workflows",
          "run",
          "charge",
          "--input",
          '{"cents": 5}',
          "--delay",
          "1h",
          ...tags.flatMap((tag) => ["--tag", tag]),
          "--json",
        ]),
      ).executionId;
    const both = await run(["cli-batch", "region:eu"]);
    const one = await run(["cli-batch", "region:us"]);
    const list = async (args: string[]) =>
      parseJson<{ results: { id: string }[] }>(await cli(["executions", "list", ...args, "--json"])).results.map(
        (row) => row.id,
      );
    expect((await list(["--tag", "cli-batch"])).sort()).toEqual([both, one].sort());
    expect(await list(["--tag", "cli-batch", "--tag", "region:eu"])).toEqual([both]);
    expect(await list(["--tag", "region:us", "--tag", "cli-batch"])).toEqual([one]);
    expect(await list(["--tag", "region:us", "--tag", "region:eu"])).toEqual([]);

    const refused = await cli([
      "executions",
      "list",
      ...Array.from({ length: 11 }, (_, i) => ["--tag", `t${i}`]).flat(),
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("tags");
  });

  it.each([
    [["--delay", "400d"], "delay"],
    [["--ttl", "10ms"], "ttl"],
    [["--delay", "soon"], "delay"],
    [Array.from({ length: 11 }, (_, i) => ["--tag", `t${i}`]).flat(), "tags"],
    [["--tag", "not a tag"], "tags"],
  ])("refuses %j, naming the field, and starts nothing", async (args, field) => {
    const before = parseJson<{ results: unknown[] }>(
      await cli(["executions", "list", "--workflow", "charge", "--json"]),
    );
    const refused = await cli(["workflows", "run", "charge", "--input", '{"cents": 5}', ...args]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(field);
    const after = parseJson<{ results: unknown[] }>(
      await cli(["executions", "list", "--workflow", "charge", "--json"]),
    );
    expect(after.results.length).toBe(before.results.length);
  });
});
