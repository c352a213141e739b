import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxSuitesRunHere, testPlatformLogger } from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startSandboxHost } from "../src/engine/sandbox/sandbox-host.ts";
import { resolveSandboxIsolation } from "../src/engine/sandbox/sandbox-isolation.ts";
import {
  encodeSyscallFilter,
  refusedSystemCalls,
  syscallFilterProgram,
  systemCallNumbers,
} from "../src/engine/sandbox/syscall-filter.ts";

/** `#define __NR_name number` lines of a kernel header, where the machine has it. */
function headerNumbers(path: string): Map<string, number> | undefined {
  if (!existsSync(path)) return undefined;
  const numbers = new Map<string, number>();
  for (const match of readFileSync(path, "utf8").matchAll(/^#define __NR_(\w+)\s+(\d+)\s*$/gm)) {
    numbers.set(match[1] ?? "", Number(match[2]));
  }
  return numbers;
}

describe("the system-call filter's program", () => {
  it.each(["x64", "arm64"] as const)("on %s: loads the arch, ends in RET, and every jump lands inside", (arch) => {
    const program = syscallFilterProgram(arch) ?? [];
    expect(program.length).toBeGreaterThan(50);
    expect(program.length).toBeLessThan(4096);
    expect(program[0]).toMatchObject({ code: 0x20, k: 4 });
    expect(program.at(-1)).toEqual({ code: 0x06, jumpIfTrue: 0, jumpIfFalse: 0, k: 0x7fff0000 });
    program.forEach((step, index) => {
      if ((step.code & 0x07) !== 0x05) return;
      expect(index + 1 + step.jumpIfTrue).toBeLessThan(program.length);
      expect(index + 1 + step.jumpIfFalse).toBeLessThan(program.length);
    });
    expect(encodeSyscallFilter(program)).toHaveLength(program.length * 8);
  });

  it("has no program for an architecture without a table, so the caller can say so", () => {
    expect(syscallFilterProgram("ppc64")).toBeUndefined();
  });

  it.each([
    ["x64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"],
    ["arm64", "/usr/include/asm-generic/unistd.h"],
  ] as const)("uses the kernel's own numbers on %s (%s, where present)", (arch, header) => {
    const kernel = headerNumbers(header);
    if (kernel === undefined) return;
    for (const [name, number] of Object.entries(systemCallNumbers(arch) ?? {})) {
      expect([name, kernel.get(name)]).toEqual([name, number]);
    }
    for (const name of refusedSystemCalls) {
      if (kernel.has(name)) expect(systemCallNumbers(arch)).toHaveProperty(name);
    }
  });
});

const runHere = (await sandboxSuitesRunHere()) && process.arch === "x64" && existsSync("/usr/bin/python3");

/**
 * Node cannot make an arbitrary system call, so Python's ctypes makes them inside bubblewrap, with
 * the filter and without it: a refused call must fail with EPERM with it and succeed without.
 */
describe.skipIf(!runHere)("the system-call filter inside bubblewrap", () => {
  const directory = mkdtempSync(join(tmpdir(), "weft-seccomp-test-"));
  const filterPath = join(directory, "filter.bpf");
  writeFileSync(filterPath, encodeSyscallFilter(syscallFilterProgram("x64") ?? []));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const probe = `
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
def call(number, *args):
    result = libc.syscall(number, *[ctypes.c_long(a) for a in args])
    return "ok" if result >= 0 else os.strerror(ctypes.get_errno())
params = ctypes.create_string_buffer(120)
ring = libc.syscall(425, ctypes.c_long(1), params)
print(json.dumps({
  "io_uring_setup": "ok" if ring >= 0 else os.strerror(ctypes.get_errno()),
  "keyctl": call(250, 0, -3, 0, 0),
  "unshare": call(272, 0x00020000),
  "getpid": call(39),
}))
`;

  function runProbe(withFilter: boolean): Record<string, string> {
    const binds = ["/usr", "/bin", "/lib", "/lib64", "/etc"]
      .filter(existsSync)
      .flatMap((dir) => ["--ro-bind", dir, dir]);
    const filterFd = 3;
    const filter = openSync(filterPath, "r");
    const result = spawnSync(
      "bwrap",
      [
        ...binds,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        ...(withFilter ? ["--seccomp", String(filterFd)] : []),
        "--",
        "/usr/bin/python3",
        "-c",
        probe,
      ],
      { stdio: ["ignore", "pipe", "pipe", withFilter ? filter : "ignore"], encoding: "utf8" },
    );
    closeSync(filter);
    expect(result.stderr).toBe("");
    return JSON.parse(result.stdout) as Record<string, string>;
  }

  it("refuses io_uring_setup, keyctl and unshare with EPERM, which succeed without it, and lets the rest through", () => {
    expect(runProbe(false)).toEqual({ io_uring_setup: "ok", keyctl: "ok", unshare: "ok", getpid: "ok" });
    expect(runProbe(true)).toEqual({
      io_uring_setup: "Operation not permitted",
      keyctl: "Operation not permitted",
      unshare: "Operation not permitted",
      getpid: "ok",
    });
  });
});

describe.skipIf(!runHere)("the sandbox's own launch", () => {
  it("runs Node with the filter in force (seccomp mode 2 in its status), beneath bubblewrap", async () => {
    const decided = await resolveSandboxIsolation({ mode: "bwrap", egress: "public", egressAllow: [] });
    if (decided.kind !== "isolated") throw new Error("bubblewrap does not work here");
    const host = await startSandboxHost(decided.isolation, { logger: testPlatformLogger("seccomp") });
    const directory = mkdtempSync(join(tmpdir(), "weft-seccomp-bundle-"));
    writeFileSync(join(directory, "bundle.mjs"), "export default { workflows: [] };");
    const child = host.spawn(join(directory, "bundle.mjs"), 128);
    try {
      const seccompModes = () => {
        const modes: string[] = [];
        const pending = [child.pid ?? -1];
        for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
          const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, "utf8") : "";
          if (/^Name:\s+node/m.test(status)) modes.push(/^Seccomp:\s+(\d)/m.exec(status)?.[1] ?? "");
          const children = existsSync(`/proc/${pid}/task/${pid}/children`)
            ? readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
            : "";
          pending.push(
            ...children
              .split(" ")
              .filter((text) => /^\d+$/.test(text))
              .map(Number),
          );
        }
        return modes;
      };
      const deadline = Date.now() + 10_000;
      while (seccompModes().length === 0) {
        if (Date.now() > deadline) throw new Error("Node never started beneath bubblewrap");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seccompModes()).toEqual(["2"]);
    } finally {
      child.kill("SIGKILL");
      await host.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
