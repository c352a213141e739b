import { fdatasyncSync } from "node:fs";
import { NodeFS } from "@electric-sql/pglite/nodefs";

type ModuleOptions = Parameters<NodeFS["init"]>[1];
type PreRun = NonNullable<ModuleOptions["preRun"]>[number];

/** What the flush uses of Emscripten's NODEFS, which PGlite's types leave untyped. */
interface NodeFsStreams {
  stream_ops: { fsync?: (stream: { nfd: number }) => void };
  /** Runs a host file operation, turning a Node error with a `code` into an `FS.ErrnoError`. */
  tryFSOperation<T>(operation: () => T): T;
}

/**
 * PGlite's file system on the host's disk (`NodeFS`), with the flush it lacks. PostgreSQL's
 * `fsync()` reaches Emscripten's `fd_sync`, which calls the open file's `fsync` operation, and
 * NODEFS has none: every flush returned at once, nothing reached the disk. This adds it to the
 * NODEFS of this database's own module: an `fdatasync` of the host file, its failure turned into
 * an errno by NODEFS's own `tryFSOperation`, so that PostgreSQL sees a failed fsync (and stops, as
 * it does on any server) rather than a JavaScript exception.
 */
export class DurableNodeFS extends NodeFS {
  #syncs = 0;
  readonly #fdatasync: (fd: number) => void;

  readonly #onFlushFailed: (error: unknown) => void;

  /**
   * `fdatasync` is the host's unless a test hands in one that fails. `onFlushFailed` hears each
   * failed flush after PostgreSQL has been told: it PANICs then, and PGlite answers no further query.
   */
  constructor(
    directory: string,
    options: { fdatasync?: (fd: number) => void; onFlushFailed?: (error: unknown) => void } = {},
  ) {
    super(directory);
    this.#fdatasync = options.fdatasync ?? fdatasyncSync;
    this.#onFlushFailed = options.onFlushFailed ?? (() => undefined);
  }

  /** Flushes to the disk made so far, those that failed left out. */
  get syncs(): number {
    return this.#syncs;
  }

  override async init(pg: Parameters<NodeFS["init"]>[0], options: ModuleOptions) {
    const { emscriptenOpts } = await super.init(pg, options);
    const addFlush: PreRun = (module) => {
      const nodefs = module.NODEFS as unknown as NodeFsStreams;
      nodefs.stream_ops.fsync = (stream) => nodefs.tryFSOperation(() => this.#flush(stream.nfd));
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), addFlush] } };
  }

  #flush(fd: number): void {
    try {
      this.#fdatasync(fd);
    } catch (error) {
      queueMicrotask(() => this.#onFlushFailed(error));
      throw error;
    }
    this.#syncs += 1;
  }
}
