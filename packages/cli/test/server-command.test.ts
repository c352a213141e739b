import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { startCli } from "./support/run-cli.ts";

describe("weft server and weft worker", () => {
  it("starts the platform on the given port, serves /healthz, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "weft-server-"));
    const server = startCli(["server", "--port", String(port)], {
      env: { WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn", HOST: "127.0.0.1" },
    });
    try {
      await server.waitFor((output) => output.includes("Weft is running at"));
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      server.kill("SIGTERM");
    }
    const result = await server.result;
    expect(result.code, result.stderr).toBe(0);
    // The embedded database's first start (creating and migrating it) takes a while on a busy machine.
  }, 120_000);

  it("weft worker starts a worker process on the configured database, and stops on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-worker-"));
    const worker = startCli(["worker"], { env: { WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" } });
    try {
      await worker.waitFor((output) => /Weft worker \S+ is running/.test(output));
    } finally {
      worker.kill("SIGTERM");
    }
    const result = await worker.result;
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);
});
