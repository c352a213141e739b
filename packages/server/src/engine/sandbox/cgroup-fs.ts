import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";

/**
 * What the sandbox cgroups do to the cgroup file system. Synchronous on purpose: a group is made
 * and filled in one turn of the event loop, so no other sandbox's start sees it half made.
 */
export interface CgroupFs {
  /** A control file's text; throws when it cannot be read. */
  read(path: string): string;
  /** Writes a control file; throws with the kernel's code (`EBUSY`, `EINVAL`, `ENOENT`…). */
  write(path: string, text: string): void;
  exists(path: string): boolean;
  writable(path: string): boolean;
  /** Creates a group; throws `EEXIST` when it is there already. */
  makeDir(path: string): void;
  /** Removes a group; throws `EBUSY` while processes or child groups are in it, `ENOENT` once gone. */
  removeDir(path: string): void;
  /** The child groups of a group (its subdirectories). */
  listDirs(path: string): string[];
}

export const systemCgroupFs: CgroupFs = {
  read: (path) => readFileSync(path, "utf8"),
  write: (path, text) => writeFileSync(path, text),
  exists: (path) => existsSync(path),
  writable: (path) => {
    try {
      accessSync(path, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  },
  makeDir: (path) => mkdirSync(path),
  removeDir: (path) => rmdirSync(path),
  listDirs: (path) =>
    readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
};

/** The error code of a failed file-system call (`EBUSY`, `ENOENT`…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}
