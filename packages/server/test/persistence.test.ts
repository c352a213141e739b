import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, spawnServer, waitUntilServing } from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.ts";
import { accounts } from "../src/db/schema/index.ts";

async function runServerOnce(dataDir: string): Promise<void> {
  const port = await freePort();
  const server = spawnServer({ PORT: String(port), WEFT_DATA_DIR: dataDir });
  await waitUntilServing(server);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}

describe("embedded data across restarts", () => {
  it("reads after a restart the row written before it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-persist-"));
    await runServerOnce(dataDir);

    const before = await openDatabase({ kind: "embedded", dataDir });
    await before.db.insert(accounts).values({ id: "acc_restart", email: "restart@example.com", createdAt: new Date() });
    await before.close();

    await runServerOnce(dataDir);

    const after = await openDatabase({ kind: "embedded", dataDir });
    const rows = await after.db.select().from(accounts).where(eq(accounts.id, "acc_restart"));
    await after.close();
    expect(rows.map((row) => row.email)).toEqual(["restart@example.com"]);
  }, 90_000);
});
