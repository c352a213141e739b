import { open, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Flushes a file's data, or a directory's entries, to the disk. */
export async function flushPath(path: string): Promise<void> {
  const file = await open(path, "r");
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
}

/**
 * Flushes every file and directory under `root`, `root` itself and the directory that holds it
 * (whose entry for `root` may be new), as initdb does when it has written a data directory.
 * Several at once (libuv's threads): the disk serves concurrent flushes together. Answers how many
 * it flushed.
 */
export async function flushTree(root: string): Promise<number> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile() || entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name));
  const all = [dirname(root), root, ...paths];
  await Promise.all(all.map(flushPath));
  return all.length;
}
