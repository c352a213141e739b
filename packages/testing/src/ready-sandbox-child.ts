import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EgressAllowEntry,
  killSandboxProcess,
  resolveSandboxIsolation,
  startSandboxHost,
} from "@weft/server/internals";
import { testPlatformLogger } from "./log-capture.ts";

/** A sandbox child the platform's own host started under bubblewrap, its runtime ready. */
export interface ReadySandboxChild {
  child: ChildProcess;
  /** The child's pid: bubblewrap's, the root of the sandbox's process tree. */
  pid: number;
  /** Gives the child one execution's egress budget, as the worker does as it hands it an execution. */
  executionStarted(): void;
  /** Kills the child's process group if it still runs, closes its host and removes its bundle. */
  close(): Promise<void>;
}

export interface ReadySandboxOptions {
  /** The bundle's source, an ES module; by default one with no workflows. */
  bundle?: string;
  /** `process` runs the child without bubblewrap, as WEFT_SANDBOX=process does. */
  mode?: "bwrap" | "process";
  egressAllow?: EgressAllowEntry[];
}

/**
 * Starts a sandbox as the worker does (bubblewrap with public egress by default), and waits until
 * its runtime reports ready on its channel: bubblewrap, the namespace's init and the workflow's
 * Node all run by then. Throws where bubblewrap does not work.
 */
export async function startReadySandboxChild(
  label: string,
  options: ReadySandboxOptions = {},
): Promise<ReadySandboxChild> {
  const { mode = "bwrap", egressAllow = [] } = options;
  const decided = await resolveSandboxIsolation({ mode, egress: "public", egressAllow });
  if (decided.kind !== "isolated") throw new Error("bubblewrap does not work here");
  const host = await startSandboxHost(decided.isolation, { logger: testPlatformLogger(label) });
  const directory = mkdtempSync(join(tmpdir(), `weft-${label}-`));
  writeFileSync(join(directory, "bundle.mjs"), options.bundle ?? "export default { workflows: [] };");
  const child = host.spawn(join(directory, "bundle.mjs"), 128);
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      killSandboxProcess(child);
      await exited;
    }
    await host.close();
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const channel = child.stdio[3];
    const pid = child.pid;
    if (channel === null || channel === undefined || pid === undefined) throw new Error("the child has no channel");
    // A killed child resets its end of the channel; a test reads the frames that came before, and
    // an error with no listener would end the test run's whole process.
    channel.on("error", () => undefined);
    await Promise.race([
      once(channel, "data"),
      once(child, "exit").then(([code, signal]) => {
        throw new Error(`the child ended before it was ready (${code ?? signal})`);
      }),
    ]);
    return { child, pid, executionStarted: () => host.egressOf(child)?.executionStarted(), close };
  } catch (error) {
    await close();
    throw error;
  }
}
