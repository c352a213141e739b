import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxSuitesRunHere, startReadySandboxChild } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processTree } from "../src/engine/sandbox/process-tree-memory.ts";
import { findExecutable, hostLibraryDirs } from "../src/engine/sandbox/sandbox-isolation.ts";
import {
  sandboxSeccompRefusals,
  seccompFilterFor,
  seccompSyscallNumbers,
} from "../src/engine/sandbox/seccomp-filter.ts";

interface Instruction {
  code: number;
  jumpIfTrue: number;
  jumpIfFalse: number;
  k: number;
}

/** `struct sock_filter` records, read back from the bytes bubblewrap is given. */
function decode(program: Buffer): Instruction[] {
  expect(program.length % 8).toBe(0);
  return Array.from({ length: program.length / 8 }, (_, index) => ({
    code: program.readUInt16LE(index * 8),
    jumpIfTrue: program.readUInt8(index * 8 + 2),
    jumpIfFalse: program.readUInt8(index * 8 + 3),
    k: program.readUInt32LE(index * 8 + 4),
  }));
}

interface SeccompData {
  arch: number;
  nr: number;
  /** The low half of args[0]. */
  firstArgument?: number;
}

/** Runs the program as the kernel would on a call, with the few opcodes it may use. */
function evaluate(program: readonly Instruction[], data: SeccompData): number {
  let accumulator = 0;
  let at = 0;
  for (;;) {
    const step = program[at];
    if (step === undefined) throw new Error(`fell off the program at ${at}`);
    switch (step.code) {
      case 0x20: {
        const word = { 0: data.nr, 4: data.arch, 16: data.firstArgument ?? 0 }[step.k];
        if (word === undefined) throw new Error(`load of offset ${step.k}`);
        accumulator = word >>> 0;
        at += 1;
        break;
      }
      case 0x15:
        at += 1 + (accumulator === step.k ? step.jumpIfTrue : step.jumpIfFalse);
        break;
      case 0x35:
        at += 1 + (accumulator >= step.k ? step.jumpIfTrue : step.jumpIfFalse);
        break;
      case 0x45:
        at += 1 + ((accumulator & step.k) !== 0 ? step.jumpIfTrue : step.jumpIfFalse);
        break;
      case 0x06:
        return step.k;
      default:
        throw new Error(`unexpected opcode ${step.code}`);
    }
  }
}

const allow = 0x7fff0000;
const eperm = 0x00050001;
const enosys = 0x00050026;
const killProcess = 0x80000000;
const auditArch = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
/** `read`, which every program makes. */
const readNumber = { x64: 0, arm64: 63 } as const;
/** The flags glibc's pthread_create passes clone, and fork's. */
const threadFlags = 0x003d0f00;
const forkFlags = 0x01200011;

/** `#define __NR_name number` lines of a kernel header, where the machine has it. */
function headerNumbers(path: string): Map<string, number> | undefined {
  if (!existsSync(path)) return undefined;
  const numbers = new Map<string, number>();
  for (const match of readFileSync(path, "utf8").matchAll(/^#define __NR_(\w+)\s+(\d+)\s*$/gm)) {
    numbers.set(match[1] ?? "", Number(match[2]));
  }
  return numbers;
}

describe("the seccomp program", () => {
  it.each(["x64", "arm64"] as const)(
    "on %s: loads the arch first, ends in RET, and every jump lands inside",
    (arch) => {
      const program = decode(seccompFilterFor(arch)?.program ?? Buffer.alloc(0));
      expect(program.length).toBeGreaterThan(sandboxSeccompRefusals.length);
      // BPF_MAXINSNS: the kernel refuses a longer program.
      expect(program.length).toBeLessThanOrEqual(4096);
      expect(program[0]).toEqual({ code: 0x20, jumpIfTrue: 0, jumpIfFalse: 0, k: 4 });
      expect(program.at(-1)).toEqual({ code: 0x06, jumpIfTrue: 0, jumpIfFalse: 0, k: allow });
      program.forEach((step, index) => {
        if ((step.code & 0x07) !== 0x05) return;
        // Short hops whatever the list's length: 8-bit offsets cannot overflow as it grows.
        expect(Math.max(step.jumpIfTrue, step.jumpIfFalse)).toBeLessThanOrEqual(5);
        expect(index + 1 + step.jumpIfTrue).toBeLessThan(program.length);
        expect(index + 1 + step.jumpIfFalse).toBeLessThan(program.length);
      });
    },
  );

  it.each(["x64", "arm64"] as const)("on %s: answers each kind of call as intended", (arch) => {
    const program = decode(seccompFilterFor(arch)?.program ?? Buffer.alloc(0));
    const numbers = seccompSyscallNumbers(arch) ?? {};
    const call = (nr: number | undefined, firstArgument?: number) =>
      evaluate(program, { arch: auditArch[arch], nr: nr ?? -1, firstArgument });
    for (const name of sandboxSeccompRefusals) {
      if (numbers[name] !== undefined) expect([name, call(numbers[name])]).toEqual([name, eperm]);
    }
    expect(call(readNumber[arch])).toBe(allow);
    expect(evaluate(program, { arch: 0x40000003, nr: readNumber[arch] })).toBe(killProcess);
    expect(call(numbers.clone3)).toBe(enosys);
    expect(call(numbers.clone, threadFlags)).toBe(allow);
    expect(call(numbers.clone, forkFlags)).toBe(allow);
    for (const flag of [0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x80]) {
      expect([flag, call(numbers.clone, forkFlags | flag)]).toEqual([flag, eperm]);
    }
    expect(call(numbers.personality, 0xffffffff)).toBe(allow);
    expect(call(numbers.personality, 0)).toBe(allow);
    expect(call(numbers.personality, 0x0040000)).toBe(eperm);
    expect(call(0x40000000 + readNumber[arch])).toBe(arch === "x64" ? eperm : allow);
  });

  it("lists what it refuses on each architecture, without the calls arm64 does not have", () => {
    expect(seccompFilterFor("x64")?.refused).toEqual(sandboxSeccompRefusals);
    const arm64 = seccompFilterFor("arm64")?.refused ?? [];
    expect(arm64).toContain("ptrace");
    for (const absent of ["iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl"] as const) {
      expect(arm64).not.toContain(absent);
    }
  });

  it("has no filter for an architecture without a table, so the caller can say so", () => {
    expect(seccompFilterFor("ppc64")).toBeUndefined();
  });

  it.each([
    ["x64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"],
    ["arm64", "/usr/include/asm-generic/unistd.h"],
  ] as const)("uses the kernel's own numbers on %s (%s, where present)", (arch, header) => {
    const kernel = headerNumbers(header);
    if (kernel === undefined) return;
    const numbers = seccompSyscallNumbers(arch) ?? {};
    for (const [name, number] of Object.entries(numbers)) {
      expect([name, kernel.get(name)]).toEqual([name, number]);
    }
    for (const name of sandboxSeccompRefusals) {
      if (kernel.has(name)) expect(numbers).toHaveProperty(name);
    }
  });
});

// Under WEFT_TEST_REQUIRE_SANDBOX=1 these run (and fail) wherever bubblewrap does not work.
const filter = seccompFilterFor(process.arch);
const runHere = (await sandboxSuitesRunHere()) && filter !== undefined;

/** A Python to make raw system calls with, and what must be bound for it beyond the system's dirs. */
function sandboxPython(): { executable: string; binds: string[] } | undefined {
  if (existsSync("/usr/bin/python3")) return { executable: "/usr/bin/python3", binds: [] };
  const found = spawnSync("python3", ["-c", "import sys; print(sys.executable); print(sys.base_prefix)"], {
    encoding: "utf8",
  });
  const [executable, prefix] = found.status === 0 ? found.stdout.trim().split("\n") : [];
  if (executable === undefined || prefix === undefined) return undefined;
  return { executable: realpathSync(executable), binds: [realpathSync(prefix)] };
}

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(!runHere)("the seccomp filter under bubblewrap", () => {
  let directory = "";
  const filterPath = () => join(directory, "filter.bpf");
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "weft-seccomp-test-"));
    writeFileSync(filterPath(), filter?.program ?? Buffer.alloc(0));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const bwrap = findExecutable("bwrap", process.env.PATH ?? "") ?? "bwrap";
  const filterFd = 3;

  /** `command` under bubblewrap, with `binds` read-only and the filter given at `filterFd` when asked. */
  async function inBubblewrap(command: string[], binds: readonly string[], filtered: boolean): Promise<Outcome> {
    const descriptor = filtered ? openSync(filterPath(), "r") : undefined;
    const args = [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-net",
      "--die-with-parent",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      ...[...new Set(binds)].flatMap((dir) => ["--ro-bind", dir, dir]),
      ...(filtered ? ["--seccomp", String(filterFd)] : []),
      "--",
      ...command,
    ];
    try {
      const child = spawn(bwrap, args, { stdio: ["ignore", "pipe", "pipe", descriptor ?? "ignore"] });
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [status] = (await once(child, "close")) as [number | null];
      return { status, stdout, stderr };
    } finally {
      if (descriptor !== undefined) closeSync(descriptor);
    }
  }

  const python = sandboxPython();

  /**
   * Node cannot make an arbitrary system call: Python's ctypes makes them, through glibc's own
   * wrappers where it has one, and each call that changes the process in a child of its own.
   */
  const probe = `
import ctypes, errno, json, mmap, os, sys, threading
numbers, x86 = json.loads(sys.argv[1]), sys.argv[2] == "x86"
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def outcome(result):
    return "ok" if result != -1 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def raw(number, *args):
    return outcome(libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args]))
def in_child(run):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write_end, run().encode())
        os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 100).decode()
    _, status = os.waitpid(pid, 0)
    return answer if os.WIFEXITED(status) else "signal %d" % os.WTERMSIG(status)
def clone(flags):
    pid = libc.syscall(ctypes.c_long(numbers["clone"]), ctypes.c_long(flags), *[ctypes.c_long(0)] * 4)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return outcome(pid)
def thread():
    ran = []
    try:
        started = threading.Thread(target=lambda: ran.append(True))
        started.start()
        started.join()
    except RuntimeError as error:
        return str(error)
    return "ok" if ran else "did not run"
params = ctypes.create_string_buffer(120)
results = {
    "keyctl": raw(numbers["keyctl"], 0, -3, 0),
    "io_uring_setup": raw(numbers["io_uring_setup"], 1, ctypes.addressof(params)),
    "clone3": raw(numbers["clone3"], 0, 0),
    "thread": thread(),
    "clone": in_child(lambda: clone(17)),
    "clone CLONE_NEWUSER": in_child(lambda: clone(0x10000000 | 17)),
    "unshare CLONE_NEWUSER": in_child(lambda: outcome(libc.unshare(0x10000000))),
    "personality query": outcome(libc.personality(ctypes.c_ulong(0xffffffff))),
    "personality ADDR_NO_RANDOMIZE": in_child(lambda: outcome(libc.personality(ctypes.c_ulong(0x0040000)))),
    "ptrace PTRACE_TRACEME": in_child(lambda: outcome(libc.ptrace(0, 0, 0, 0))),
}
if x86:
    results["x32 getpid"] = raw(0x40000000 + 39)
    def i386_getpid():
        code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        code.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 20; int 0x80; ret
        ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(code)))()
        return "returned"
    results["int 0x80"] = in_child(i386_getpid)
print(json.dumps(results))
`;

  async function runProbe(filtered: boolean): Promise<Record<string, string>> {
    if (python === undefined) throw new Error("no python3");
    const binds = ["/usr", "/bin", "/lib", "/lib64", "/etc"].filter(existsSync).concat(python.binds);
    const outcome = await inBubblewrap(
      [
        python.executable,
        "-c",
        probe,
        JSON.stringify(seccompSyscallNumbers(process.arch)),
        process.arch === "x64" ? "x86" : "",
      ],
      binds,
      filtered,
    );
    expect(outcome).toMatchObject({ status: 0, stderr: "" });
    return JSON.parse(outcome.stdout) as Record<string, string>;
  }

  it.skipIf(python === undefined)(
    "refuses the calls with EPERM that succeed without it, and lets threads, processes and the rest through",
    async () => {
      const unfiltered = await runProbe(false);
      const filtered = await runProbe(true);
      expect(unfiltered).toMatchObject({
        keyctl: "ok",
        io_uring_setup: "ok",
        // It reaches the kernel, which finds no arguments.
        clone3: "EINVAL",
        thread: "ok",
        clone: "ok",
        "clone CLONE_NEWUSER": "ok",
        "unshare CLONE_NEWUSER": "ok",
        "personality query": "ok",
        "personality ADDR_NO_RANDOMIZE": "ok",
        "ptrace PTRACE_TRACEME": "ok",
      });
      expect(filtered).toMatchObject({
        keyctl: "EPERM",
        io_uring_setup: "EPERM",
        // glibc's pthread_create tries clone3 first, and falls back to clone on ENOSYS.
        clone3: "ENOSYS",
        thread: "ok",
        clone: "ok",
        "clone CLONE_NEWUSER": "EPERM",
        "unshare CLONE_NEWUSER": "EPERM",
        "personality query": "ok",
        "personality ADDR_NO_RANDOMIZE": "EPERM",
        "ptrace PTRACE_TRACEME": "EPERM",
      });
      if (process.arch === "x64") {
        expect(unfiltered["x32 getpid"]).not.toBe("EPERM");
        expect(filtered["x32 getpid"]).toBe("EPERM");
        // Without it the i386 entry answers, or the kernel has none (ENOSYS, SIGSEGV); with it, SIGSYS.
        // A kernel built with the i386 entry but booted with it off faults the instruction with SIGSEGV
        // before any filter runs, so there the call is refused either way.
        expect(unfiltered["int 0x80"]).not.toBe("signal 31");
        expect(filtered["int 0x80"]).toBe(unfiltered["int 0x80"] === "signal 11" ? "signal 11" : "signal 31");
      }
    },
  );

  it("lets Node start its threads, run code and a Worker", async () => {
    const nodePath = realpathSync(process.execPath);
    const script = `
const { readFileSync } = require("node:fs");
const { Worker } = require("node:worker_threads");
const filters = Number(/^Seccomp_filters:\\s+(\\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
new Worker("require('node:worker_threads').parentPort.postMessage(6 * 7)", { eval: true }).once("message", (worker) =>
  console.log(JSON.stringify({ sum: 1 + 1, worker, filters })),
);
`;
    const run = async (filtered: boolean) => {
      const outcome = await inBubblewrap([nodePath, "-e", script], [...hostLibraryDirs(), nodePath], filtered);
      expect(outcome).toMatchObject({ status: 0, stderr: "" });
      return JSON.parse(outcome.stdout) as { sum: number; worker: number; filters: number };
    };
    const unfiltered = await run(false);
    expect(await run(true)).toEqual({ sum: 2, worker: 42, filters: unfiltered.filters + 1 });
  });
});

describe.skipIf(!runHere)("the platform's own sandbox launch", () => {
  it("runs the child's Node under the filter", async () => {
    const sandbox = await startReadySandboxChild("seccomp");
    try {
      const filtersOf = (pid: number | string) =>
        Number(/^Seccomp_filters:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
      const nodes = processTree(sandbox.pid).filter(
        (pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === realpathSync(process.execPath),
      );
      expect(nodes.map(filtersOf)).toEqual([filtersOf("self") + 1]);
    } finally {
      await sandbox.close();
    }
  });
});
