import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serverEntry } from "@weft/testing";
import { describe, expect, it } from "vitest";

const workerEntry = fileURLToPath(new URL("../src/worker-main.ts", import.meta.url));

function start(env: Record<string, string>, entry = serverEntry) {
  return spawnSync(process.execPath, [entry], {
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

describe("start-up with a bad configuration: every entry point", () => {
  it("stops a worker process with exit code 1 and one line naming the variable", () => {
    const result = start({ WEFT_WORKER_CONCURRENCY: "0" }, workerEntry);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      'weft worker: invalid configuration: WEFT_WORKER_CONCURRENCY="0" is not an integer from 1 to 1000: expected for example WEFT_WORKER_CONCURRENCY=100',
    ]);
    expect(result.stdout).not.toContain("is running");
  });

  it("stops the platform with one line when the data dir's secret key file holds no key", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-cfg-"));
    writeFileSync(join(dataDir, "secret.key"), "not a key\n");
    const result = start({ WEFT_DATA_DIR: dataDir });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^weft: invalid configuration: .*secret\.key does not hold a 32-byte hex key: delete it/);
    expect(result.stdout).not.toContain("Weft is running");
  });
});
