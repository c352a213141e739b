import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverEntry } from "./support/index.ts";

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [serverEntry], {
    env: { PATH: process.env.PATH ?? "", WEFT_DATA_DIR: mkdtempSync(join(tmpdir(), "weft-cfg-")), ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
}

describe("start-up with a bad configuration", () => {
  it.each([
    [{ PORT: "abc" }, 'PORT="abc" is not a port number'],
    [{ DATABASE_URL: "mysql://x" }, 'DATABASE_URL uses the unsupported scheme "mysql"'],
    [{ WEFT_TRUSTED_ISSUERS: "not-json" }, "WEFT_TRUSTED_ISSUERS"],
    [{ WEFT_BASE_URL: "example.com" }, "WEFT_BASE_URL"],
  ])("%o stops the process with exit code 1 and one line naming the variable", (env, expected) => {
    const result = start(env);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    expect(lines[0]).toMatch(/expected/);
    expect(result.stdout).not.toContain("Weft is running");
  });
});
