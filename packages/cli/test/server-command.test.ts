import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { completeClaim, createClient, discover, registerWithEmail } from "@weft/client";
import { freePort, startSmtpSink } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { approveFromMail } from "./support/platform.ts";
import { type CliResult, type RunningCli, runCli, startCli } from "./support/run-cli.ts";

/**
 * Does `use` while a long-running command runs, then stops it with SIGTERM (also when `use` fails),
 * and returns how it ended.
 */
async function stoppedAfter(cli: RunningCli, use: () => Promise<void>): Promise<CliResult> {
  try {
    await use();
  } finally {
    cli.kill("SIGTERM");
  }
  return cli.result;
}

describe("weft server and weft worker", () => {
  it("starts the platform on the given port, serves /healthz, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "weft-server-"));
    const server = startCli(["server", "--port", String(port)], {
      env: { WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn", HOST: "127.0.0.1" },
    });
    const result = await stoppedAfter(server, async () => {
      await server.waitFor((output) => output.includes("Weft is running at"));
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    });
    expect(result.code, result.stderr).toBe(0);
    // The embedded database's first start (creating and migrating it) takes a while on a busy machine.
  }, 120_000);

  it("weft worker starts a worker process on the configured database, and stops on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-worker-"));
    const worker = startCli(["worker"], { env: { WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" } });
    const result = await stoppedAfter(worker, () =>
      worker.waitFor((output) => /Weft worker \S+ is running/.test(output)),
    );
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);

  it("weft server set-plan reaches a running platform on the embedded database through its data directory's socket", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "weft-operator-"));
    const smtp = await startSmtpSink();
    const env = {
      WEFT_DATA_DIR: dataDir,
      WEFT_LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      SMTP_URL: smtp.url,
      WEFT_PLANS: JSON.stringify([{ name: "team", executionsPerMonth: 100_000 }]),
    };
    const server = startCli(["server", "--port", String(port)], { env });
    const result = await stoppedAfter(server, async () => {
      await server.waitFor((output) => output.includes("Weft is running at"));
      // The socket is the owner's alone: the rights to use it are those to the data directory.
      expect(statSync(join(dataDir, "operator.sock")).mode & 0o777).toBe(0o600);
      const baseUrl = `http://127.0.0.1:${port}`;
      const discovery = await discover(baseUrl);
      const pending = await registerWithEmail(discovery, "operator@example.com");
      const code = await approveFromMail(smtp, "operator@example.com");
      const { credential } = await completeClaim(discovery, { claimToken: pending.claimToken, otp: code });
      const client = createClient({ baseUrl, token: credential });
      const [workspace] = (await client.access.listWorkspaces({})).results;
      const workspaceId = workspace?.id ?? "";

      const assigned = await runCli(["server", "set-plan", workspaceId, "team"], { env });
      expect(assigned.stderr).toBe("");
      expect(assigned.code).toBe(0);
      expect(assigned.stdout).toBe(`Workspace ${workspaceId} is now on the plan "team".\n`);
      expect((await client.billing.getPlan({ workspaceId })).plan.name).toBe("team");

      const unknownPlan = await runCli(["server", "set-plan", workspaceId, "gold"], { env });
      expect(unknownPlan.code).toBe(1);
      expect(unknownPlan.stderr).toMatch(/no plan is named "gold" in WEFT_PLANS/);
      expect((await client.billing.getPlan({ workspaceId })).plan.name).toBe("team");
    }).finally(() => smtp.close());
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);
});
