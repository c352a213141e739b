import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort, localPlatformEnv, serverEntry, spawnServer, waitUntilServing } from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";
import { resolveSandboxIsolation } from "../src/engine/sandbox/sandbox-isolation.ts";

/** A PATH with Node on it and no bubblewrap, as on a machine that never installed it. */
const pathWithoutBwrap = dirname(process.execPath);
const bwrapWorks =
  (await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] })).kind === "isolated";
const dataDirs: string[] = [];
/** What /healthz says of the cgroups depends on the machine: v1 or v2 where they can be had, else off. */
const anyCgroups = expect.stringMatching(/^(v1|v2|off)$/);

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "weft-sandbox-start-"));
  dataDirs.push(dir);
  return dir;
}

/**
 * The data directory of the first start, once it has stopped. Each start after it runs on a copy:
 * these tests are about the sandbox in force, and a warm start takes a fraction of a first one
 * (initdb and the migrations).
 */
let firstStarted: string | undefined;

function dataDirForStart(): string {
  const dir = dataDir();
  if (firstStarted !== undefined) cpSync(firstStarted, dir, { recursive: true });
  return dir;
}

afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `npm start`'s entry point, reads its banner, stderr and /healthz, then stops it. */
async function startAndInspect(env: Record<string, string>) {
  const port = await freePort();
  const dir = dataDirForStart();
  const server = spawnServer({ ...localPlatformEnv(port, dir), ...env });
  let served = false;
  try {
    await waitUntilServing(server);
    served = true;
    const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
    return { banner: server.stdout(), stderr: server.stderr(), health };
  } finally {
    server.child.kill("SIGTERM");
    // Only a start that served and stopped cleanly leaves a data directory worth copying.
    if ((await server.exited) === 0 && served) firstStarted ??= dir;
  }
}

// The first start initialises its data directory (initdb and the migrations), which takes several
// times its quiet-machine time while the rest of the suite loads the machine.
describe("start-up: the sandbox in force", { timeout: 90_000 }, () => {
  it("refuses to start with WEFT_SANDBOX=bwrap when bubblewrap is missing, in one line", () => {
    const result = spawnSync(process.execPath, [serverEntry], {
      env: { PATH: pathWithoutBwrap, WEFT_DATA_DIR: dataDir(), PORT: "0", WEFT_SANDBOX: "bwrap" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      "weft: cannot start: WEFT_SANDBOX=bwrap but bubblewrap does not work here (no bwrap executable on the PATH): install it (apt-get install bubblewrap) or set WEFT_SANDBOX=auto",
    ]);
    expect(result.stdout).not.toContain("Weft is running");
  });

  it("falls back to plain processes under auto without bubblewrap, warns loudly and reports it", async () => {
    const seen = await startAndInspect({ PATH: pathWithoutBwrap });
    expect(seen.stderr).toContain("WARNING: workflow code is NOT isolated");
    expect(seen.stderr).toContain("Do not run untrusted tenants");
    expect(seen.stderr).toContain("apt-get install bubblewrap");
    expect(seen.stderr.split("\n").length).toBeGreaterThan(5);
    expect(seen.banner).toContain("sandbox: plain processes, NOT isolated");
    expect(seen.health).toEqual({ status: "ok", sandbox: { mode: "process", egress: "all", cgroups: anyCgroups } });
  });

  it("runs plain processes without a warning when WEFT_SANDBOX=process says so", async () => {
    const seen = await startAndInspect({ WEFT_SANDBOX: "process" });
    expect(seen.stderr).not.toContain("NOT isolated");
    expect(seen.health).toEqual({ status: "ok", sandbox: { mode: "process", egress: "all", cgroups: anyCgroups } });
  });

  it.skipIf(!bwrapWorks)("isolates with bubblewrap by default and says so in the banner and /healthz", async () => {
    const seen = await startAndInspect({});
    expect(seen.stderr).not.toContain("NOT isolated");
    expect(seen.banner).toContain("sandbox: bubblewrap, egress public");
    expect(seen.health).toEqual({ status: "ok", sandbox: { mode: "bwrap", egress: "public", cgroups: anyCgroups } });
  });

  it("runs without cgroups when WEFT_SANDBOX_CGROUPS=off says so, without a warning, and reports it", async () => {
    const seen = await startAndInspect({ WEFT_SANDBOX: "process", WEFT_SANDBOX_CGROUPS: "off" });
    expect(seen.stderr).not.toContain("cgroups are not in force");
    expect(seen.banner).toContain("sandbox: plain processes, NOT isolated, cgroups off");
    expect(seen.health).toEqual({ status: "ok", sandbox: { mode: "process", egress: "all", cgroups: "off" } });
  });

  it("leaves the sandbox out of /healthz in a process without the worker role", async () => {
    const seen = await startAndInspect({ WEFT_ROLES: "api,ingress", PATH: pathWithoutBwrap });
    expect(seen.stderr).not.toContain("NOT isolated");
    expect(seen.health).toEqual({ status: "ok" });
  });
});
