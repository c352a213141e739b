import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { EgressAllowEntry } from "../egress/address-policy.ts";
import type { SandboxEgressLimits } from "../egress/egress-limits.ts";
import { resolveSandboxCgroups, type SandboxCgroups } from "./sandbox-cgroups.ts";
import type { SandboxConfig } from "./sandbox-config.ts";
import {
  buildSandboxLaunch,
  type LaunchIsolation,
  sandboxChannelFd,
  sandboxRuntimeFiles,
  sandboxStdio,
} from "./sandbox-launch.ts";
import { killSandboxProcess } from "./sandbox-process-group.ts";

/** The isolation in force for workflow code, decided once per process at start-up. */
export interface SandboxIsolation extends LaunchIsolation {
  egressAllow: EgressAllowEntry[];
  /** What each child may hold and move through the egress proxy; the defaults when unset. */
  egressLimits?: SandboxEgressLimits | undefined;
  /** Where each sandbox's CPU, memory and tasks are bounded; `undefined` without cgroups. */
  cgroups?: SandboxCgroups | undefined;
}

export type SandboxResolution =
  | { kind: "isolated"; isolation: SandboxIsolation }
  /** `auto` without a working bubblewrap: the process sandbox, and a warning to print. */
  | { kind: "fallback"; isolation: SandboxIsolation; warning: string }
  /** `bwrap` without a working bubblewrap: the platform must not start. */
  | { kind: "refused"; message: string };

export interface SandboxProbeOptions {
  /** Where to look for `bwrap` (the PATH by default). */
  searchPath?: string | undefined;
  timeoutMs?: number;
}

/** Directories holding the shared libraries Node links against, where they exist. */
export function hostLibraryDirs(): string[] {
  return ["/lib", "/lib64", "/usr/lib", "/usr/lib64"].filter((dir) => existsSync(dir));
}

export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * Starts Node under bubblewrap with the argument set real children get (the bundle replaced by the
 * runtime's own directory) and asks it to answer over the IPC channel: a kernel without
 * unprivileged user namespaces, or a container that forbids them, fails here rather than at the
 * first execution.
 */
function probe(bwrapPath: string, egress: "public" | "all", timeoutMs: number): Promise<string | undefined> {
  const launch = buildSandboxLaunch({
    isolation: { mode: "bwrap", egress, bwrapPath },
    nodePath: realpathSync(process.execPath),
    libraryDirs: hostLibraryDirs(),
    ...sandboxRuntimeFiles,
    bundleDir: join(sandboxRuntimeFiles.runtimePath, ".."),
    bundleFile: "child-runtime.ts",
    memoryMb: 64,
  });
  const nodeAt = launch.args.indexOf("--") + 1;
  const args = [
    ...launch.args.slice(0, nodeAt + 1),
    "-e",
    `require("node:fs").writeSync(${sandboxChannelFd}, "ready")`,
  ];
  return new Promise((resolve) => {
    // Started and killed as a sandbox is (`killSandboxProcess`): a timeout during its set-up must not leave its init behind.
    const child = spawn(launch.command, args, { env: launch.env, stdio: [...sandboxStdio], detached: true });
    let stderr = "";
    let answered = false;
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.stdio[sandboxChannelFd]?.on("data", () => {
      answered = true;
    });
    const timer = setTimeout(() => killSandboxProcess(child), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (answered && code === 0) return resolve(undefined);
      const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
      resolve(
        `${bwrapPath} did not run Node (${how})${stderr.trim() === "" ? "" : `: ${stderr.trim().split("\n")[0]}`}`,
      );
    });
  });
}

/**
 * Probe results per binary and egress mode. A process probes once however many platforms or
 * workers it starts (test files start several), and bubblewrap does not stop working meanwhile.
 */
const probes = new Map<string, Promise<string | undefined>>();

function probeOnce(bwrapPath: string, egress: "public" | "all", timeoutMs: number): Promise<string | undefined> {
  const key = `${bwrapPath}\u0000${egress}`;
  let result = probes.get(key);
  if (result === undefined) {
    result = probe(bwrapPath, egress, timeoutMs);
    probes.set(key, result);
  }
  return result;
}

const bar = "!".repeat(78);

function fallbackWarning(reason: string): string {
  return [
    bar,
    "!! WARNING: workflow code is NOT isolated: bubblewrap is unavailable.",
    `!! ${reason}`,
    "!! Workflows run as plain child processes of the platform, with its user, its network",
    "!! (databases, cloud metadata, the platform's own port) and its processes within reach.",
    "!! Do not run untrusted tenants on this installation.",
    "!! To isolate: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap,",
    "!! or pacman -S bubblewrap; in a container, allow unprivileged user namespaces.",
    "!! Set WEFT_SANDBOX=process to accept this and silence the warning, or",
    "!! WEFT_SANDBOX=bwrap to refuse to start without isolation.",
    bar,
  ].join("\n");
}

/**
 * Why WEFT_SANDBOX=bwrap stops the process, and the fix. A bwrap that is installed but fails is
 * almost always a container that forbids what it needs (the image sets WEFT_SANDBOX=bwrap so that
 * it says so instead of running tenants unisolated); the way out without isolation is named, never
 * taken.
 */
function refusal(missing: boolean, failure: string | undefined): string {
  const fix = missing
    ? "install it (apt-get install bubblewrap) or set WEFT_SANDBOX=auto"
    : `it needs unprivileged user namespaces and a /proc of its own: in a container, run it with the seccomp profile deploy/seccomp-weft.json and /proc unmasked (Docker or Podman: --security-opt seccomp=seccomp-weft.json --security-opt systempaths=unconfined; Kubernetes: see the README's "Self-hosting"), or set WEFT_SANDBOX=process to run workflow code NOT isolated`;
  return `WEFT_SANDBOX=bwrap but bubblewrap does not work here (${failure}): ${fix}`;
}

/** Decides the isolation for WEFT_SANDBOX: probes bubblewrap once unless `process` is asked for. */
export async function resolveSandboxIsolation(
  config: Omit<SandboxConfig, "cgroups" | "egressLimits">,
  options: SandboxProbeOptions = {},
): Promise<SandboxResolution> {
  const processIsolation: SandboxIsolation = {
    mode: "process",
    egress: "all",
    egressAllow: config.egressAllow,
    bwrapPath: "",
  };
  if (config.mode === "process") return { kind: "isolated", isolation: processIsolation };
  const bwrapPath = findExecutable("bwrap", options.searchPath ?? process.env.PATH ?? "");
  const failure =
    bwrapPath === undefined
      ? "no bwrap executable on the PATH"
      : await probeOnce(bwrapPath, config.egress, options.timeoutMs ?? 10_000);
  if (bwrapPath !== undefined && failure === undefined) {
    return {
      kind: "isolated",
      isolation: { mode: "bwrap", egress: config.egress, egressAllow: config.egressAllow, bwrapPath },
    };
  }
  if (config.mode === "bwrap") {
    return { kind: "refused", message: refusal(bwrapPath === undefined, failure) };
  }
  return { kind: "fallback", isolation: processIsolation, warning: fallbackWarning(`Reason: ${failure}.`) };
}

/** bubblewrap (WEFT_SANDBOX=bwrap) or cgroups (WEFT_SANDBOX_CGROUPS=on) were required and do not work: the process must not start. */
export class SandboxUnavailableError extends Error {
  override readonly name = "SandboxUnavailableError";
}

/**
 * The isolation a process that runs workflows starts with. A fallback to unisolated processes, or
 * to sandboxes without cgroups, is announced through `warn` (stderr by default), where an operator
 * cannot miss it.
 */
export async function decideSandbox(
  config: SandboxConfig,
  warn: (text: string) => void = (text) => process.stderr.write(`${text}\n`),
): Promise<SandboxIsolation> {
  const resolution = await resolveSandboxIsolation(config);
  if (resolution.kind === "refused") throw new SandboxUnavailableError(resolution.message);
  const cgroups = resolveSandboxCgroups(config.cgroups);
  if (cgroups.kind === "refused") throw new SandboxUnavailableError(cgroups.message);
  if (resolution.kind === "fallback") warn(resolution.warning);
  if (cgroups.kind === "fallback") warn(cgroups.warning);
  const isolation = { ...resolution.isolation, egressLimits: config.egressLimits };
  return cgroups.kind === "enabled" ? { ...isolation, cgroups: cgroups.cgroups } : isolation;
}
