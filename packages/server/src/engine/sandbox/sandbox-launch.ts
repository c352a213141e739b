import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The stdio of every sandbox child: output is piped to the parent, and the framed channel
 * (channel-frames.ts) is a socket pair at fd 3, which bubblewrap passes through.
 */
export const sandboxStdio = ["ignore", "pipe", "pipe", "pipe"] as const;
/** The child's end of its channel, as child-runtime.ts opens it. */
export const sandboxChannelFd = 3;
/** Where bubblewrap reads the system-call filter (seccomp-filter.ts) from, after the stdio above. */
export const sandboxSeccompFd = sandboxStdio.length;

/** Where things appear inside the bubblewrap sandbox. */
export const sandboxPaths = {
  runtimeDir: "/weft/runtime",
  bundleDir: "/weft/bundle",
  egressSocket: "/weft/egress.sock",
  /** Inside the child's own network namespace, where the egress forwarder listens. */
  egressProxyUrl: "http://127.0.0.1:3128",
} as const;

/** The sandbox's /tmp: writable only through node:sqlite, so small. */
export const sandboxTmpBytes = 16 * 1024 * 1024;
/** Unprivileged ids in the sandbox's user namespace (nobody/nogroup). */
const sandboxUid = "65534";

/** What a child's command line depends on of the isolation in force (`SandboxIsolation`). */
export interface LaunchIsolation {
  mode: "bwrap" | "process";
  /** Under `process` there is no network namespace: egress is the host's, whatever was configured. */
  egress: "public" | "all";
  /** The bubblewrap binary; empty under `process`. */
  bwrapPath: string;
}

export interface SandboxLaunchRequest {
  isolation: LaunchIsolation;
  /** The Node binary, symlinks resolved (bubblewrap binds it at the same path). */
  nodePath: string;
  /** Directories of the shared libraries Node links, bound read-only (e.g. /usr/lib, /lib, /lib64). */
  libraryDirs: readonly string[];
  runtimePath: string;
  /** The channel's framing, which the runtime imports. */
  framesPath: string;
  forwarderPath: string;
  /** The deployment's bundle directory, and the bundle's file name in it. */
  bundleDir: string;
  bundleFile: string;
  memoryMb: number;
  /** The egress proxy's Unix socket on the host, under bwrap with `public` egress. */
  egressSocketPath?: string | undefined;
  /** Under bwrap: whether the system-call filter is passed at `sandboxSeccompFd`. */
  seccomp?: boolean | undefined;
}

export interface SandboxLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The most a child's young generation may take, in MiB per semi-space: a 32nd of its memory cap,
 * between 1 and 16. Otherwise V8 sizes it from the machine's memory, whatever `--max-old-space-size`
 * says, and a workflow that makes short-lived garbage fills it and keeps it: on a large machine, half
 * of the default cap held by garbage.
 */
export function sandboxSemiSpaceMb(memoryMb: number): number {
  return Math.min(16, Math.max(1, Math.floor(memoryMb / 32)));
}

/** Node's own permission model: the second layer inside bubblewrap, and the only one without it. */
function nodeArgs(readable: readonly string[], memoryMb: number): string[] {
  return [
    "--permission",
    ...readable.map((path) => `--allow-fs-read=${path}`),
    `--max-old-space-size=${memoryMb}`,
    `--max-semi-space-size=${sandboxSemiSpaceMb(memoryMb)}`,
    // Deployed bundles carry inline source maps: a stack names the user's file and line.
    "--enable-source-maps",
    "--disable-warning=ExperimentalWarning",
  ];
}

// The platform's environment (database URL, keys) never reaches user code.
const childEnv = { NODE_ENV: "production", TZ: "UTC" };

/** The command line of one sandbox child: bubblewrap around Node, or Node alone. Pure. */
export function buildSandboxLaunch(request: SandboxLaunchRequest): SandboxLaunch {
  const { isolation } = request;
  const bundlePath = join(request.bundleDir, request.bundleFile);
  if (isolation.mode === "process") {
    return {
      command: request.nodePath,
      args: [
        ...nodeArgs([request.bundleDir, request.runtimePath, request.framesPath], request.memoryMb),
        request.runtimePath,
        bundlePath,
      ],
      env: childEnv,
    };
  }
  const runtime = join(sandboxPaths.runtimeDir, "child-runtime.ts");
  const frames = join(sandboxPaths.runtimeDir, "channel-frames.ts");
  const forwarder = join(sandboxPaths.runtimeDir, "egress-forwarder.ts");
  const proxied = isolation.egress === "public" && request.egressSocketPath !== undefined;
  const env: Record<string, string> = {
    ...childEnv,
    ...(proxied
      ? {
          NODE_USE_ENV_PROXY: "1",
          HTTP_PROXY: sandboxPaths.egressProxyUrl,
          HTTPS_PROXY: sandboxPaths.egressProxyUrl,
          WEFT_EGRESS_SOCKET: sandboxPaths.egressSocket,
        }
      : {}),
  };
  const args = [
    "--unshare-user",
    // No nested user namespaces: they are the usual door to kernel attack surface.
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(isolation.egress === "public" ? ["--unshare-net"] : []),
    "--uid",
    sandboxUid,
    "--gid",
    sandboxUid,
    "--hostname",
    "weft-sandbox",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    ...Object.entries(env).flatMap(([name, value]) => ["--setenv", name, value]),
    // /tmp first: a Node binary or runtime living under the host's /tmp is then bound on top of it.
    "--size",
    String(sandboxTmpBytes),
    "--tmpfs",
    "/tmp",
    "--proc",
    "/proc",
    "--dev-bind",
    "/dev/null",
    "/dev/null",
    "--dev-bind",
    "/dev/urandom",
    "/dev/urandom",
    ...request.libraryDirs.flatMap((dir) => ["--ro-bind", dir, dir]),
    "--ro-bind",
    request.nodePath,
    request.nodePath,
    "--ro-bind",
    request.runtimePath,
    runtime,
    "--ro-bind",
    request.framesPath,
    frames,
    "--ro-bind",
    request.forwarderPath,
    forwarder,
    "--ro-bind",
    request.bundleDir,
    sandboxPaths.bundleDir,
    ...(proxied ? ["--ro-bind", request.egressSocketPath ?? "", sandboxPaths.egressSocket] : []),
    // Sharing the host network needs its resolver configuration; `public` resolves in the proxy.
    ...(isolation.egress === "all"
      ? ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"].flatMap((file) => ["--ro-bind-try", file, file])
      : []),
    ...(request.seccomp === true ? ["--seccomp", String(sandboxSeccompFd)] : []),
    // The root is a tmpfs with no size of its own: once everything is mounted, only /tmp stays writable.
    "--remount-ro",
    "/",
    "--chdir",
    "/",
    "--",
    request.nodePath,
    ...nodeArgs([sandboxPaths.bundleDir, runtime, frames, ...(proxied ? [forwarder] : [])], request.memoryMb),
    ...(proxied ? ["--import", forwarder] : []),
    runtime,
    join(sandboxPaths.bundleDir, request.bundleFile),
  ];
  return { command: isolation.bwrapPath, args, env: {} };
}

/**
 * Niceness of every sandbox process tree: the kernel then prefers the platform's own threads (API,
 * claims, database) to tenant code whenever the CPU is short, cgroups or not.
 */
export const sandboxNiceness = 10;

/** `launch` run through `nice` (its absolute path), which execs it at the sandbox's niceness. Pure. */
export function atLowerPriority(launch: SandboxLaunch, nicePath: string): SandboxLaunch {
  return { ...launch, command: nicePath, args: ["-n", String(sandboxNiceness), launch.command, ...launch.args] };
}

/** The runtime files of a sandbox child, next to this module. */
export const sandboxRuntimeFiles = {
  runtimePath: fileURLToPath(new URL("./child-runtime.ts", import.meta.url)),
  framesPath: fileURLToPath(new URL("./channel-frames.ts", import.meta.url)),
  forwarderPath: fileURLToPath(new URL("./egress-forwarder.ts", import.meta.url)),
};
