/**
 * The seccomp program bubblewrap loads (`--seccomp FD`) before it runs Node: the last layer of the
 * sandbox. Namespaces, Node's permission model and the egress proxy hold as long as tenant code
 * stays JavaScript; the day a V8 or Node bug gives it native execution, the system calls below,
 * which Node never makes in a sandbox and which are the usual doors to kernel attack surface, fail
 * with EPERM instead of reaching the kernel code behind them.
 *
 * The program is classic BPF, `struct sock_filter` after `struct sock_filter`, in the form
 * bubblewrap reads from the descriptor and hands to the kernel: written here without a native addon.
 */

/**
 * Refused outright with EPERM: process inspection (ptrace, process_vm_*, perf_event_open), the
 * kernel keyring, mounts and namespaces, eBPF, userfaultfd (a favourite for winning kernel races),
 * io_uring, kernel and module loading, the machine's clock, names and swap, raw I/O ports, file
 * handles (which open files outside the mount namespace), and obsolete calls.
 */
export const sandboxSeccompRefusals = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "perf_event_open",
  "keyctl",
  "add_key",
  "request_key",
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "unshare",
  "setns",
  "bpf",
  "userfaultfd",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "reboot",
  "swapon",
  "swapoff",
  "acct",
  "quotactl",
  "settimeofday",
  "clock_settime",
  "adjtimex",
  "clock_adjtime",
  "sethostname",
  "setdomainname",
  "iopl",
  "ioperm",
  "lookup_dcookie",
  "open_by_handle_at",
  "name_to_handle_at",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "move_mount",
  "open_tree",
  "mount_setattr",
  "syslog",
  "vhangup",
  "nfsservctl",
  "uselib",
  "ustat",
  "sysfs",
  "_sysctl",
] as const;
export type SeccompRefusal = (typeof sandboxSeccompRefusals)[number];
/** Every call the program names: the refusals, and those judged by their arguments. */
export type SeccompFilteredCall = SeccompRefusal | "clone" | "clone3" | "personality";

interface ArchitectureTable {
  /** `AUDIT_ARCH_*`, as `seccomp_data.arch` carries it. */
  auditArch: number;
  /** System call numbers; a call the architecture does not have is left out. */
  numbers: Readonly<Partial<Record<SeccompFilteredCall, number>>>;
  /** Numbers at or above this belong to another ABI of the same architecture (x32 on x86-64). */
  foreignAbiFrom?: number;
}

/**
 * Calls added since Linux 5.1 (from number 424 on) are numbered alike on every architecture, so
 * x86-64 and arm64 share these.
 */
const commonTableNumbers: Readonly<Partial<Record<SeccompFilteredCall, number>>> = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  clone3: 435,
  mount_setattr: 442,
};

/** From the kernel's `asm/unistd_64.h` (x86-64) and `asm-generic/unistd.h` (arm64); a test checks them. */
const architectures: Partial<Record<NodeJS.Architecture, ArchitectureTable>> = {
  x64: {
    auditArch: 0xc000003e,
    foreignAbiFrom: 0x40000000,
    numbers: {
      ...commonTableNumbers,
      clone: 56,
      personality: 135,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      perf_event_open: 298,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      unshare: 272,
      setns: 308,
      bpf: 321,
      userfaultfd: 323,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      reboot: 169,
      swapon: 167,
      swapoff: 168,
      acct: 163,
      quotactl: 179,
      settimeofday: 164,
      clock_settime: 227,
      adjtimex: 159,
      clock_adjtime: 305,
      sethostname: 170,
      setdomainname: 171,
      iopl: 172,
      ioperm: 173,
      lookup_dcookie: 212,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      syslog: 103,
      vhangup: 153,
      nfsservctl: 180,
      uselib: 134,
      ustat: 136,
      sysfs: 139,
      _sysctl: 156,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    numbers: {
      ...commonTableNumbers,
      clone: 220,
      personality: 92,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      perf_event_open: 241,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      unshare: 97,
      setns: 268,
      bpf: 280,
      userfaultfd: 282,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      reboot: 142,
      swapon: 224,
      swapoff: 225,
      acct: 89,
      quotactl: 60,
      settimeofday: 170,
      clock_settime: 112,
      adjtimex: 171,
      clock_adjtime: 266,
      sethostname: 161,
      setdomainname: 162,
      lookup_dcookie: 18,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      syslog: 116,
      vhangup: 58,
      nfsservctl: 42,
    },
  },
};

/** The numbers of the filtered calls on `arch`, or `undefined` without a table for it. */
export function seccompSyscallNumbers(
  arch: NodeJS.Architecture,
): Readonly<Partial<Record<SeccompFilteredCall, number>>> | undefined {
  return architectures[arch]?.numbers;
}

// Classic BPF opcodes and seccomp's return values (linux/filter.h, linux/seccomp.h).
const loadWord = 0x20; // BPF_LD | BPF_W | BPF_ABS
const jumpIfEqual = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const jumpIfAtLeast = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const jumpIfAnyBit = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const returnValue = 0x06; // BPF_RET | BPF_K
const allow = 0x7fff0000;
const killProcess = 0x80000000;
const errno = (code: number) => 0x00050000 | code;
const EPERM = 1;
const ENOSYS = 38;
// Offsets in `struct seccomp_data`: the call's number, the architecture, the low half of args[0]
// (both architectures are little-endian, and clone's flags and personality's persona are 32 bits).
const numberOffset = 0;
const archOffset = 4;
const firstArgumentOffset = 16;
/**
 * The CLONE_NEW* flags: a namespace made by `clone` is refused as `unshare` is. CLONE_NEWTIME
 * shares its bit with clone's exit signal, which no real signal sets; it is in the mask so the
 * filter does not depend on how the kernel reads that byte.
 */
const newNamespaceFlags =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;
/** `personality(0xffffffff)` only reads the persona; PER_LINUX is the one every process has. */
const personalityQuery = 0xffffffff;
const perLinux = 0;

interface Instruction {
  code: number;
  jumpIfTrue: number;
  jumpIfFalse: number;
  k: number;
}

const instruction = (code: number, k: number, jumpIfTrue = 0, jumpIfFalse = 0): Instruction => ({
  code,
  jumpIfTrue,
  jumpIfFalse,
  k,
});

/**
 * Every check that needs an argument ends in a return on each path, so its load of the argument
 * never leaks into the next check, and no jump skips more than a handful of instructions: however
 * long the list grows, BPF's 8-bit jump offsets cannot overflow.
 */
function buildProgram(table: ArchitectureTable): Instruction[] {
  const program: Instruction[] = [
    instruction(loadWord, archOffset),
    // Another architecture's entry (i386's int 0x80 on x86-64, arm32 on arm64) numbers its calls
    // differently, so this list cannot judge them. Node never uses one; only code that escaped
    // JavaScript would, and it is killed rather than answered EPERM and left to try the next door.
    instruction(jumpIfEqual, table.auditArch, 1, 0),
    instruction(returnValue, killProcess),
    instruction(loadWord, numberOffset),
  ];
  const { numbers, foreignAbiFrom } = table;
  if (foreignAbiFrom !== undefined) {
    program.push(instruction(jumpIfAtLeast, foreignAbiFrom, 0, 1), instruction(returnValue, errno(EPERM)));
  }
  for (const name of sandboxSeccompRefusals) {
    const number = numbers[name];
    if (number === undefined) continue;
    program.push(instruction(jumpIfEqual, number, 0, 1), instruction(returnValue, errno(EPERM)));
  }
  if (numbers.clone3 !== undefined) {
    // Its flags sit in a struct BPF cannot read: refused as absent, so glibc falls back to clone.
    program.push(instruction(jumpIfEqual, numbers.clone3, 0, 1), instruction(returnValue, errno(ENOSYS)));
  }
  if (numbers.personality !== undefined) {
    // Changing it could turn off address-space randomisation or make readable memory executable.
    program.push(
      instruction(jumpIfEqual, numbers.personality, 0, 5),
      instruction(loadWord, firstArgumentOffset),
      instruction(jumpIfEqual, personalityQuery, 1, 0),
      instruction(jumpIfEqual, perLinux, 0, 1),
      instruction(returnValue, allow),
      instruction(returnValue, errno(EPERM)),
    );
  }
  if (numbers.clone !== undefined) {
    program.push(
      instruction(jumpIfEqual, numbers.clone, 0, 4),
      instruction(loadWord, firstArgumentOffset),
      instruction(jumpIfAnyBit, newNamespaceFlags, 0, 1),
      instruction(returnValue, errno(EPERM)),
      instruction(returnValue, allow),
    );
  }
  // The path to here reads only the number and the architecture, so kernels with seccomp's action
  // cache allow every other call without running the program.
  program.push(instruction(returnValue, allow));
  return program;
}

/** The program as the kernel reads it: 8 bytes per instruction, little-endian like both architectures. */
function encode(program: readonly Instruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((step, index) => {
    const at = index * 8;
    bytes.writeUInt16LE(step.code, at);
    bytes.writeUInt8(step.jumpIfTrue, at + 2);
    bytes.writeUInt8(step.jumpIfFalse, at + 3);
    bytes.writeUInt32LE(step.k >>> 0, at + 4);
  });
  return bytes;
}

export interface SeccompFilter {
  /** `struct sock_filter[]`, as `bwrap --seccomp FD` reads it from the descriptor. */
  program: Buffer;
  /**
   * The calls refused with EPERM on this architecture. Besides them: clone3 fails with ENOSYS,
   * clone with a CLONE_NEW* flag and personality changes with EPERM, and the x32 ABI with EPERM.
   */
  refused: readonly SeccompRefusal[];
}

/**
 * The filter for `arch` (pass `process.arch`), or `undefined` for an architecture without a table
 * here: the caller then runs the sandbox without this layer, and says so.
 */
export function seccompFilterFor(arch: NodeJS.Architecture): SeccompFilter | undefined {
  const table = architectures[arch];
  if (table === undefined) return undefined;
  return {
    program: encode(buildProgram(table)),
    refused: sandboxSeccompRefusals.filter((name) => table.numbers[name] !== undefined),
  };
}
