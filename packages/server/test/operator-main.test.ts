import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/** The operator's entry point in the container image, which has no CLI. */
const operatorEntry = fileURLToPath(new URL("../src/operator-main.ts", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "weft-operator-main-"));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function operator(args: string[]) {
  return spawnSync(process.execPath, [operatorEntry, ...args], {
    env: { PATH: process.env.PATH ?? "", WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("operator-main.ts", () => {
  it("names its commands on anything else, with exit code 2", () => {
    for (const args of [[], ["rotate"], ["set-plan", "wsp_only"]]) {
      const result = operator(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(
        "usage: node packages/server/src/operator-main.ts rotate-secret-key | set-plan <workspaceId> <plan>\n",
      );
    }
  });

  it("runs set-plan as weft server set-plan does, on the embedded database of WEFT_DATA_DIR", () => {
    const result = operator(["set-plan", "wsp_00000000000000000000000000", "unlimited"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^weft server set-plan: No workspace/);
  }, 90_000);

  it("runs rotate-secret-key as weft server rotate-secret-key does", () => {
    const result = operator(["rotate-secret-key"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Done: every integration secret is sealed under the current key (0 re-sealed)");
  }, 90_000);
});
