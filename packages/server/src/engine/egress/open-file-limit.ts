import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Logger } from "../../shared/logger.ts";
import { type OpenFileLimits, parseOpenFileLimits, raisedSoftLimit } from "./open-file-share.ts";

function readOwnLimits(): OpenFileLimits | undefined {
  try {
    return parseOpenFileLimits(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return undefined;
  }
}

function prlimit(pid: number, limit: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    execFile("prlimit", ["--pid", String(pid), `--nofile=${limit}:${limit}`], { timeout: 5000 }, (error) =>
      resolve(error ?? undefined),
    );
  });
}

/**
 * Raises this process's soft open-file limit to its hard one where that is higher: Node has no
 * setrlimit, so util-linux's prlimit does it from outside. Where prlimit is missing or refuses,
 * the soft limit stays and the log says so. Returns the limits in force afterwards (undefined
 * where /proc cannot tell, e.g. off Linux).
 */
export async function raiseOpenFileLimit(logger: Logger): Promise<OpenFileLimits | undefined> {
  const before = readOwnLimits();
  const target = before === undefined ? undefined : raisedSoftLimit(before);
  if (before === undefined || target === undefined) return before;
  const error = await prlimit(process.pid, target);
  if (error !== undefined) {
    logger.warn(
      { err: error, softLimit: before.soft, hardLimit: before.hard },
      "the open-file limit could not be raised to the hard limit (is prlimit of util-linux installed?); the soft limit stays",
    );
    return before;
  }
  return readOwnLimits() ?? before;
}
