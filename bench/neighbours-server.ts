import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { resolveSandboxIsolation } from "@weft/server/internals";
import { createTestDatabase, createTestIdentity, freePort, localPlatformEnv } from "@weft/testing";

/**
 * The platform of the neighbours benchmark, in its own process: every role, as `npm start` runs it
 * (its own embedded database, or a fresh one on the PostgreSQL server given as the second
 * argument), the sandbox's default settings but for loopback port `argv[2]`, which the egress
 * proxy lets workflow code reach. Sends `{url, tokens: {a, b}, database, sandbox}` over IPC once
 * it serves (a credential for each tenant's account); stops on SIGTERM or when its parent goes.
 */
export interface NeighboursServerReady {
  url: string;
  tokens: { a: string; b: string };
  database: string;
  sandbox: string;
}

const [allowedPort, postgresUrl] = process.argv.slice(2);
if (allowedPort === undefined) throw new Error("usage: neighbours-server.ts <allowed loopback port> [postgres url]");
const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), "weft-neighbours-"));
const config = loadConfig({
  ...localPlatformEnv(port, dataDir),
  WEFT_LOG_LEVEL: "warn",
  WEFT_SANDBOX_EGRESS_ALLOW: `127.0.0.1:${allowedPort}`,
});
const ownDatabase = postgresUrl === undefined ? undefined : await createTestDatabase(postgresUrl);
const platform = await startPlatform(config, ownDatabase === undefined ? {} : { database: ownDatabase });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    await platform.stop();
    await ownDatabase?.destroy();
  })()
    .catch((error: unknown) => {
      process.stderr.write(`the neighbours platform did not stop cleanly: ${String(error)}\n`);
      process.exitCode = 1;
    })
    .finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit();
    });
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);

const isolation = await resolveSandboxIsolation(config.sandbox);
const a = await createTestIdentity({ platform }, "tenant-a@example.com");
const b = await createTestIdentity({ platform }, "tenant-b@example.com");
const ready: NeighboursServerReady = {
  url: config.baseUrl,
  tokens: { a: a.credential, b: b.credential },
  database: ownDatabase === undefined ? "embedded" : "PostgreSQL",
  sandbox: isolation.kind === "refused" ? "none" : isolation.isolation.mode,
};
process.send?.(ready);
