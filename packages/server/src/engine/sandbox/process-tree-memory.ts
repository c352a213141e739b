import { readdirSync, readFileSync, readlinkSync, statfsSync } from "node:fs";

/** More processes than a sandbox can have: it cannot spawn, so the tree is bwrap and Node at most. */
const maxTreeSize = 64;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Resident memory (VmRSS) of a process and all its descendants, in bytes, from Linux's `/proc`;
 * `undefined` where `/proc` cannot tell (another system, or the process is gone). The tree matters
 * because under bubblewrap the worker's child is `bwrap` and Node runs beneath it.
 */
export function processTreeRssBytes(pid: number, proc = "/proc"): number | undefined {
  let total: number | undefined;
  for (const current of processTree(pid, proc)) {
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(readText(`${proc}/${current}/status`) ?? "");
    if (rss !== null) total = (total ?? 0) + Number(rss[1]) * 1024;
  }
  return total;
}

/** Linux's magic number of a tmpfs, as statfs reports its type. */
const tmpfsMagic = 0x01021994;

/**
 * Bytes written to the `/tmp` tmpfs of the tree's own mount namespaces (bubblewrap's): a file there
 * is memory of the host that no process's RSS shows. A process sharing the caller's mount
 * namespace (the plain process sandbox) writes to the host's disk instead, and counts nothing.
 */
export function processTreeTmpfsBytes(pid: number, proc = "/proc"): number {
  const own = readLink(`${proc}/self/ns/mnt`);
  const counted = new Set<string>();
  let total = 0;
  for (const current of processTree(pid, proc)) {
    const namespace = readLink(`${proc}/${current}/ns/mnt`);
    if (namespace === undefined || namespace === own || counted.has(namespace)) continue;
    try {
      const stats = statfsSync(`${proc}/${current}/root/tmp`);
      if (stats.type !== tmpfsMagic) continue;
      counted.add(namespace);
      total += (stats.blocks - stats.bfree) * stats.bsize;
    } catch {
      // The process is gone, or its root cannot be read: nothing to count.
    }
  }
  return total;
}

/** What the memory watchdog counts of a sandbox: its tree's resident memory and its tmpfs. */
export function sandboxMemoryBytes(pid: number, proc = "/proc"): number | undefined {
  const rss = processTreeRssBytes(pid, proc);
  return rss === undefined ? undefined : rss + processTreeTmpfsBytes(pid, proc);
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The process and its descendants, at most `maxTreeSize` of them. */
export function processTree(pid: number, proc = "/proc"): number[] {
  const pending = [pid];
  const seen = new Set<number>();
  for (let current = pending.pop(); current !== undefined && seen.size < maxTreeSize; current = pending.pop()) {
    if (seen.has(current)) continue;
    seen.add(current);
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`${proc}/${current}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      for (const child of (readText(`${proc}/${current}/task/${task}/children`) ?? "").split(" ")) {
        if (/^\d+$/.test(child)) pending.push(Number(child));
      }
    }
  }
  return [...seen];
}
