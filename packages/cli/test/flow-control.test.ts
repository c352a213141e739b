import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("flow@example.com");

/** The README's flow-control example, as written there. */
const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8");
const readmeConfig = /## Flow control[\s\S]*?cat > weft.config.ts <<'TS'\n([\s\S]*?)\nTS\n/.exec(readme)?.[1] ?? "";

const { cli } = deployedProject(signedIn, "flow", { "weft.config.ts": `${readmeConfig}\n` });

describe("flow control from the CLI", () => {
  it("runs the README's example: a second digest is skipped, a second reindex is debounced into the first", async () => {
    expect(readmeConfig).toContain('debounce: { period: "10s", key: "$.docId" }');
    const sync = await cli(["workflows", "run", "sync", "--input", '{"customerId": "acme", "priority": 5}']);
    expect(sync.stdout, sync.stderr).toMatch(/Started exe_\w+\./);
    const digest = await cli(["workflows", "run", "digest", "--input", '{"userId": "u1"}']);
    expect(digest.stdout).toMatch(/Started exe_\w+\./);
    const skipped = await cli(["workflows", "run", "digest", "--input", '{"userId": "u1"}']);
    expect(skipped.stdout).toMatch(/Skipped: over the workflow's rateLimit\. Recorded as exe_\w+ \(cancelled\)\./);
    const first = await cli(["workflows", "run", "reindex", "--input", '{"docId": "d1", "version": 1}']);
    const executionId = /Started (exe_\w+)\./.exec(first.stdout)?.[1] ?? "";
    const second = await cli(["workflows", "run", "reindex", "--input", '{"docId": "d1", "version": 2}']);
    expect(second.stdout).toContain(`Debounced into ${executionId}`);
    const listed = parseJson<{ results: { id: string }[] }>(
      await cli(["executions", "list", "--workflow", "reindex", "--json"]),
    );
    expect(listed.results.map((execution) => execution.id)).toEqual([executionId]);
    const execution = parseJson<{ input: unknown }>(await cli(["executions", "get", executionId, "--json"]));
    expect(execution.input).toEqual({ docId: "d1", version: 2 });
  });
});
