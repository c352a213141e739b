import { readdirSync, readFileSync } from "node:fs";

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
  const pending = [pid];
  const seen = new Set<number>();
  let total: number | undefined;
  for (let current = pending.pop(); current !== undefined && seen.size < maxTreeSize; current = pending.pop()) {
    if (seen.has(current)) continue;
    seen.add(current);
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(readText(`${proc}/${current}/status`) ?? "");
    if (rss !== null) total = (total ?? 0) + Number(rss[1]) * 1024;
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
  return total;
}
