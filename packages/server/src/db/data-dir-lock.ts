import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Another live process holds the data directory. */
export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
  readonly directory: string;
  readonly pid: number;

  constructor(directory: string, pid: number) {
    super(
      `the data directory ${directory} is in use by another Weft process (pid ${pid}): stop it first, or set WEFT_DATA_DIR to another directory`,
    );
    this.directory = directory;
    this.pid = pid;
  }
}

export interface DataDirLock {
  /** Removes the lock file, if it is still this process's. */
  release(): void;
}

interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot (`/proc/<pid>/stat`), null where there is no `/proc`. */
  startTicks: number | null;
}

export const lockFileName = "weft.pid";

/**
 * Makes this process the only one using `directory`'s embedded database: PGlite has no lock of its
 * own, and two processes on one database directory corrupt it. The lock is a file naming the
 * holder's pid and start time; a file whose process is gone (a crash, a SIGKILL) or whose pid now
 * belongs to another process is stale and taken over at once, so nothing is left stuck.
 */
export function lockDataDir(directory: string): DataDirLock {
  const path = join(directory, lockFileName);
  const mine: Holder = { pid: process.pid, startTicks: processStartTicks(process.pid) };
  const content = JSON.stringify(mine);
  // Written whole under a private name, then linked into place: link fails if the lock exists, so a
  // reader never sees a half-written file and two starters never both succeed.
  const draft = `${path}.${process.pid}.draft`;
  writeFileSync(draft, content);
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        linkSync(draft, path);
        return { release: () => releaseIfMine(path, content) };
      } catch (error) {
        if (!isCode(error, "EEXIST")) throw error;
      }
      const holder = readHolder(path);
      if (holder !== undefined && isRunning(holder)) throw new DataDirLockedError(directory, holder.pid);
      removeStale(path);
    }
    const holder = readHolder(path);
    throw new DataDirLockedError(directory, holder?.pid ?? 0);
  } finally {
    rmSync(draft, { force: true });
  }
}

function releaseIfMine(path: string, content: string): void {
  if (readText(path) === content) rmSync(path, { force: true });
}

/**
 * Moves the stale file aside before deleting it, so that of two starters that both found it stale,
 * the second finds nothing to move rather than deleting the first one's fresh lock.
 */
function removeStale(path: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (isCode(error, "ENOENT")) return;
    throw error;
  }
  rmSync(aside, { force: true });
}

function readHolder(path: string): Holder | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { pid, startTicks } = value as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
    return { pid, startTicks: typeof startTicks === "number" ? startTicks : null };
  } catch {
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (isCode(error, "ENOENT")) return undefined;
    throw error;
  }
}

function isRunning(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the pid is alive but another user's; then only the start time can tell.
    if (!isCode(error, "EPERM")) return false;
  }
  // A pid is reused after its process ends (a container restarted on the same volume starts with
  // the same small pids): only the same pid with the same start time is the holder.
  if (holder.startTicks === null) return holder.pid !== process.pid;
  return processStartTicks(holder.pid) === holder.startTicks;
}

function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses; the fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
