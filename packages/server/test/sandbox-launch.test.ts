import { describe, expect, it } from "vitest";
import {
  atLowerPriority,
  buildSandboxLaunch,
  type SandboxLaunchRequest,
  sandboxSeccompFd,
  sandboxSemiSpaceMb,
  sandboxTmpBytes,
} from "../src/engine/sandbox/sandbox-launch.ts";

const request = (isolation: SandboxLaunchRequest["isolation"], egressSocketPath?: string): SandboxLaunchRequest => ({
  isolation,
  nodePath: "/opt/node/bin/node",
  libraryDirs: ["/lib", "/usr/lib"],
  runtimePath: "/srv/weft/sandbox/child-runtime.ts",
  framesPath: "/srv/weft/sandbox/channel-frames.ts",
  forwarderPath: "/srv/weft/sandbox/egress-forwarder.ts",
  bundleDir: "/data/bundles/dep_1",
  bundleFile: "bundle.mjs",
  memoryMb: 128,
  egressSocketPath,
});

/** The values that follow each occurrence of a flag. */
function valuesOf(args: readonly string[], flag: string, count = 1): string[][] {
  return args.flatMap((arg, index) => (arg === flag ? [args.slice(index + 1, index + 1 + count)] : []));
}

describe("buildSandboxLaunch", () => {
  it("runs Node alone under its permission model for the process sandbox, with no platform environment", () => {
    const launch = buildSandboxLaunch(request({ mode: "process", egress: "all", bwrapPath: "" }));
    expect(launch).toEqual({
      command: "/opt/node/bin/node",
      args: [
        "--permission",
        "--allow-fs-read=/data/bundles/dep_1",
        "--allow-fs-read=/srv/weft/sandbox/child-runtime.ts",
        "--allow-fs-read=/srv/weft/sandbox/channel-frames.ts",
        "--max-old-space-size=128",
        "--max-semi-space-size=4",
        "--enable-source-maps",
        "--disable-warning=ExperimentalWarning",
        "/srv/weft/sandbox/child-runtime.ts",
        "/data/bundles/dep_1/bundle.mjs",
      ],
      env: { NODE_ENV: "production", TZ: "UTC" },
    });
  });

  it("wraps Node in bubblewrap: every namespace, nobody, no capabilities, a read-only view, a capped /tmp", () => {
    const launch = buildSandboxLaunch(
      request({ mode: "bwrap", egress: "public", bwrapPath: "/usr/bin/bwrap" }, "/tmp/weft-egress-x/egress.sock"),
    );
    expect(launch.command).toBe("/usr/bin/bwrap");
    expect(launch.env).toEqual({});
    const separator = launch.args.indexOf("--");
    const bwrapArgs = launch.args.slice(0, separator);
    const nodeArgs = launch.args.slice(separator + 1);
    for (const flag of [
      "--unshare-user",
      "--disable-userns",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
    ]) {
      expect(bwrapArgs).toContain(flag);
    }
    expect(valuesOf(bwrapArgs, "--uid")).toEqual([["65534"]]);
    expect(valuesOf(bwrapArgs, "--gid")).toEqual([["65534"]]);
    expect(valuesOf(bwrapArgs, "--cap-drop")).toEqual([["ALL"]]);
    expect(valuesOf(bwrapArgs, "--ro-bind", 2)).toEqual([
      ["/lib", "/lib"],
      ["/usr/lib", "/usr/lib"],
      ["/opt/node/bin/node", "/opt/node/bin/node"],
      ["/srv/weft/sandbox/child-runtime.ts", "/weft/runtime/child-runtime.ts"],
      ["/srv/weft/sandbox/channel-frames.ts", "/weft/runtime/channel-frames.ts"],
      ["/srv/weft/sandbox/egress-forwarder.ts", "/weft/runtime/egress-forwarder.ts"],
      ["/data/bundles/dep_1", "/weft/bundle"],
      ["/tmp/weft-egress-x/egress.sock", "/weft/egress.sock"],
    ]);
    expect(valuesOf(bwrapArgs, "--bind", 2)).toEqual([]);
    // Everything but /tmp is read-only once mounted: the root's own tmpfs has no size.
    expect(bwrapArgs.slice(-4)).toEqual(["--remount-ro", "/", "--chdir", "/"]);
    expect(valuesOf(bwrapArgs, "--dev-bind", 2)).toEqual([
      ["/dev/null", "/dev/null"],
      ["/dev/urandom", "/dev/urandom"],
    ]);
    expect(valuesOf(bwrapArgs, "--proc")).toEqual([["/proc"]]);
    expect(valuesOf(bwrapArgs, "--size", 3)).toEqual([[String(sandboxTmpBytes), "--tmpfs", "/tmp"]]);
    // Mounted before the binds, so that a Node binary under the host's /tmp is not hidden by it.
    expect(bwrapArgs.indexOf("--tmpfs")).toBeLessThan(bwrapArgs.indexOf("--ro-bind"));
    expect(Object.fromEntries(valuesOf(bwrapArgs, "--setenv", 2))).toEqual({
      NODE_ENV: "production",
      TZ: "UTC",
      NODE_USE_ENV_PROXY: "1",
      HTTP_PROXY: "http://127.0.0.1:3128",
      HTTPS_PROXY: "http://127.0.0.1:3128",
      WEFT_EGRESS_SOCKET: "/weft/egress.sock",
    });
    expect(nodeArgs).toEqual([
      "/opt/node/bin/node",
      "--permission",
      "--allow-fs-read=/weft/bundle",
      "--allow-fs-read=/weft/runtime/child-runtime.ts",
      "--allow-fs-read=/weft/runtime/channel-frames.ts",
      "--allow-fs-read=/weft/runtime/egress-forwarder.ts",
      "--max-old-space-size=128",
      "--max-semi-space-size=4",
      "--enable-source-maps",
      "--disable-warning=ExperimentalWarning",
      "--import",
      "/weft/runtime/egress-forwarder.ts",
      "/weft/runtime/child-runtime.ts",
      "/weft/bundle/bundle.mjs",
    ]);
  });

  it("shares the host network under egress all: no network namespace, no proxy, the resolver's files", () => {
    const launch = buildSandboxLaunch(request({ mode: "bwrap", egress: "all", bwrapPath: "/usr/bin/bwrap" }));
    expect(launch.args).not.toContain("--unshare-net");
    expect(launch.args).not.toContain("--import");
    expect(launch.args).not.toContain("HTTP_PROXY");
    expect(valuesOf(launch.args, "--ro-bind-try", 2)).toEqual([
      ["/etc/resolv.conf", "/etc/resolv.conf"],
      ["/etc/hosts", "/etc/hosts"],
      ["/etc/nsswitch.conf", "/etc/nsswitch.conf"],
    ]);
    expect(launch.args).toContain("--unshare-pid");
  });

  it("runs a launch through nice at the sandbox's niceness, exec'd so the pid and exit are the launch's", () => {
    const launch = buildSandboxLaunch(request({ mode: "process", egress: "all", bwrapPath: "" }));
    const lowered = atLowerPriority(launch, "/usr/bin/nice");
    expect(lowered).toEqual({
      ...launch,
      command: "/usr/bin/nice",
      args: ["-n", "10", launch.command, ...launch.args],
    });
  });

  it("passes bubblewrap the system-call filter at the descriptor after the stdio, when asked", () => {
    const isolation = { mode: "bwrap", egress: "public", bwrapPath: "/usr/bin/bwrap" } as const;
    const filtered = buildSandboxLaunch({ ...request(isolation), seccomp: true });
    expect(valuesOf(filtered.args, "--seccomp")).toEqual([[String(sandboxSeccompFd)]]);
    expect(sandboxSeccompFd).toBe(4);
    expect(buildSandboxLaunch(request(isolation)).args).not.toContain("--seccomp");
  });
});

describe("sandboxSemiSpaceMb", () => {
  it("gives a child's young generation a 32nd of its memory cap, at least 1 MiB and at most 16 MiB per semi-space", () => {
    expect([32, 63, 64, 256, 512, 1024, 65536].map(sandboxSemiSpaceMb)).toEqual([1, 1, 2, 8, 16, 16, 16]);
  });
});
