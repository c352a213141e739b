/**
 * The seccomp program bubblewrap loads (`--seccomp FD`) before it runs Node: the last layer of the
 * sandbox. Namespaces, Node's permission model and the egress proxy hold as long as tenant code
 * stays JavaScript; the day a V8 or Node bug gives it native execution, these system calls, which
 * Node never makes in a sandbox and which are the usual doors to kernel attack surface, fail with
 * EPERM instead.
 *
 * The program is classic BPF, `struct sock_filter` after `struct sock_filter`, as the kernel takes
 * it from `prctl(PR_SET_SECCOMP)`: written here without a native addon.
 */

/** System calls refused, by name; each is looked up in the table of the machine's architecture. */
export const refusedSystemCalls = [
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
type RefusedSystemCall = (typeof refusedSystemCalls)[number];
type FilteredSystemCall = RefusedSystemCall | "clone" | "clone3";

interface Architecture {
  /** `AUDIT_ARCH_*`, as `seccomp_data.arch` carries it. */
  auditArch: number;
  /** System call numbers; a call the architecture does not have is left out. */
  numbers: Partial<Record<FilteredSystemCall, number>>;
  /** Numbers at or above this belong to another ABI of the same architecture (x32 on x86-64). */
  foreignAbiFrom?: number;
}

/** From the kernel's `asm/unistd_64.h` (x86-64) and `asm-generic/unistd.h` (arm64). */
const architectures: Partial<Record<NodeJS.Architecture, Architecture>> = {
  x64: {
    auditArch: 0xc000003e,
    foreignAbiFrom: 0x40000000,
    numbers: {
      clone: 56,
      clone3: 435,
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
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
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
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      move_mount: 429,
      open_tree: 428,
      mount_setattr: 442,
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
      clone: 220,
      clone3: 435,
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
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
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
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      move_mount: 429,
      open_tree: 428,
      mount_setattr: 442,
      syslog: 116,
      vhangup: 58,
      nfsservctl: 42,
    },
  },
};

/** The numbers of the filtered calls on `arch`, for checking against the kernel's headers. */
export function systemCallNumbers(arch: NodeJS.Architecture): Partial<Record<FilteredSystemCall, number>> | undefined {
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
// Offsets in `struct seccomp_data`: the call's number, the architecture, the low half of args[0].
const numberOffset = 0;
const archOffset = 4;
const firstArgumentOffset = 16;
/** The CLONE_NEW* flags: a namespace made by `clone` is refused as `unshare` is. */
const newNamespaceFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

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
 * The program for `arch`, or `undefined` for an architecture without a table here (the sandbox then
 * runs without this layer, and says so). Every jump skips at most three instructions, so no list
 * of calls can overflow BPF's 8-bit jump offsets.
 */
export function syscallFilterProgram(arch: NodeJS.Architecture): Instruction[] | undefined {
  const table = architectures[arch];
  if (table === undefined) return undefined;
  const program: Instruction[] = [
    instruction(loadWord, archOffset),
    // A call through another architecture's entry (i386's int 0x80 on x86-64) has other numbers.
    instruction(jumpIfEqual, table.auditArch, 1, 0),
    instruction(returnValue, killProcess),
    instruction(loadWord, numberOffset),
  ];
  if (table.foreignAbiFrom !== undefined) {
    program.push(instruction(jumpIfAtLeast, table.foreignAbiFrom, 0, 1), instruction(returnValue, errno(EPERM)));
  }
  for (const name of refusedSystemCalls) {
    const number = table.numbers[name];
    if (number === undefined) continue;
    program.push(instruction(jumpIfEqual, number, 0, 1), instruction(returnValue, errno(EPERM)));
  }
  const { clone, clone3 } = table.numbers;
  if (clone3 !== undefined) {
    // Its flags sit in a struct that BPF cannot read: refused as absent, so glibc falls back to clone.
    program.push(instruction(jumpIfEqual, clone3, 0, 1), instruction(returnValue, errno(ENOSYS)));
  }
  if (clone !== undefined) {
    program.push(
      instruction(jumpIfEqual, clone, 0, 3),
      instruction(loadWord, firstArgumentOffset),
      instruction(jumpIfAnyBit, newNamespaceFlags, 0, 1),
      instruction(returnValue, errno(EPERM)),
    );
  }
  program.push(instruction(returnValue, allow));
  return program;
}

/** The program as the kernel reads it: 8 bytes per instruction, in the machine's byte order. */
export function encodeSyscallFilter(program: readonly Instruction[]): Buffer {
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
