/** What the cgroups hold the sandboxes to. */
export interface SandboxCgroupLimits {
  /**
   * Added to the sandbox memory (`WEFT_WORKER_MEMORY_MB`) for the group's memory limit: Node's
   * memory outside the V8 heap cap, kernel memory, and what the child wrote to its tmpfs, which the
   * kernel charges to the writer's group. The watchdog stops a child at the sandbox memory; the
   * group stops the allocations too fast for the watchdog's readings.
   */
  memoryMarginMb: number;
  cpuPeriodUs: number;
  /** CPU time one sandbox may use per period. */
  sandboxCpuQuotaUs: number;
  /** CPU time all sandboxes of the platform process may use per period, together. */
  totalCpuQuotaUs: number;
  /** The sandboxes' group's CPU weight beside the platform's (the kernel's default, 100, under v2). */
  cpuWeight: number;
  /** Most tasks (threads and processes) in one sandbox. */
  pidsMax: number;
}

const cpuPeriodUs = 100_000;
const defaultCpuWeight = 100;

/**
 * The limits on a machine with `cores` CPUs: a sandbox gets one core at most, and all of them
 * together leave the platform a core when there is more than one; under contention the platform
 * wins four to one. Node runs about fifteen threads and bubblewrap two processes: 64 tasks leave
 * room, and stop a thread or process bomb.
 */
export function sandboxCgroupLimits(cores: number): SandboxCgroupLimits {
  return {
    memoryMarginMb: 64,
    cpuPeriodUs,
    sandboxCpuQuotaUs: cpuPeriodUs,
    totalCpuQuotaUs: Math.max(1, Math.floor(cores) - 1) * cpuPeriodUs,
    cpuWeight: defaultCpuWeight / 4,
    pidsMax: 64,
  };
}

/** The group's memory limit for a sandbox of `memoryMb`, in MiB. */
export function groupMemoryMb(limits: SandboxCgroupLimits, memoryMb: number): number {
  return memoryMb + limits.memoryMarginMb;
}

/** v1's `cpu.shares` for a v2 weight: both default to their kernel's 1024 and 100. */
export function cpuSharesOfWeight(weight: number): number {
  return Math.max(2, Math.round((weight * 1024) / defaultCpuWeight));
}
