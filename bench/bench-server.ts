import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { createTestDatabase, createTestIdentity, freePort, localPlatformEnv } from "@weft/testing";

/**
 * The server side of `npm run bench`, run as its own process so the load generator does not share
 * its event loop: a platform on a fresh database (PGlite, or PostgreSQL when WEFT_TEST_DATABASE_URL
 * is set) with the system clock, one user with a credential and some projects. Prints one JSON line
 * `{url, token, database}` once it serves, then runs until killed.
 */
const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-"));
const config = loadConfig({
  ...localPlatformEnv(port, dataDir),
  WEFT_LOG_LEVEL: "warn",
});
const database = await createTestDatabase(false, { embeddedDataDir: dataDir });
const platform = await startPlatform(config, { database });
const identity = await createTestIdentity({ platform }, "bench@example.com");
for (let index = 0; index < 50; index += 1) {
  const response = await fetch(`${config.baseUrl}/rpc/projects/create`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${identity.credential}` },
    body: JSON.stringify({ json: { name: `project-${index}` } }),
  });
  if (!response.ok) throw new Error(`could not create bench projects: ${response.status}`);
}
process.stdout.write(
  `${JSON.stringify({ url: config.baseUrl, token: identity.credential, database: database.kind })}\n`,
);
const stop = async () => {
  await platform.stop();
  await database.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
