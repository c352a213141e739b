import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type ServerProcess, spawnServer, waitUntilServing } from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";

const dataDirs: string[] = [];
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
  await Promise.all(servers.map((server) => server.exited));
  for (const directory of dataDirs) rmSync(directory, { recursive: true, force: true });
});

async function startOn(dataDir: string): Promise<{ server: ServerProcess; port: number }> {
  const port = await freePort();
  const server = spawnServer({ PORT: String(port), WEFT_DATA_DIR: dataDir, WEFT_ROLES: "auth,api,ingress" });
  servers.push(server);
  return { server, port };
}

describe("one process per embedded data directory", () => {
  it("refuses a second process naming the directory and the holder's pid, and a SIGKILLed holder blocks nothing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-lock-"));
    dataDirs.push(dataDir);
    const first = await startOn(dataDir);
    await waitUntilServing(first.server);

    const second = await startOn(dataDir);
    expect(await second.server.exited).toBe(1);
    expect(second.server.stderr().trim().split("\n")).toEqual([
      `weft: cannot start: the data directory ${dataDir} is in use by another Weft process (pid ${first.server.child.pid}): stop it first, or set WEFT_DATA_DIR to another directory`,
    ]);
    expect(second.server.stdout()).not.toContain("Weft is running");
    expect((await fetch(`http://127.0.0.1:${first.port}/healthz`)).status).toBe(200);

    first.server.child.kill("SIGKILL");
    await first.server.exited;
    const third = await startOn(dataDir);
    await waitUntilServing(third.server);
    expect((await fetch(`http://127.0.0.1:${third.port}/healthz`)).status).toBe(200);
    third.server.child.kill("SIGTERM");
    expect(await third.server.exited).toBe(0);

    // A clean stop leaves the directory free at once.
    const fourth = await startOn(dataDir);
    await waitUntilServing(fourth.server);
    fourth.server.child.kill("SIGTERM");
    expect(await fourth.server.exited).toBe(0);
  }, 120_000);
});
