import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "@weft/testing";

const run = promisify(execFile);

/** A PostgreSQL server of the fault test's own, which it may restart at will. */
export interface OwnPostgres {
  /** The `postgres` database of the server, as `DATABASE_URL`. */
  url: string;
  /** `pg_ctl restart -m immediate`: every backend is killed without a checkpoint, as in a crash. */
  restartImmediately(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory (Debian's layout), if any. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, "bin", "initdb")))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, "bin");
}

/** PostgreSQL refuses to run as root, so as root its tools run as the `postgres` user, as `.ci/run` does. */
function asPostgres(command: string, args: string[]): Promise<unknown> {
  const isRoot = process.getuid?.() === 0;
  return isRoot ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, args);
}

/** initdb into a temporary directory and start the server on a free port of 127.0.0.1. */
export async function startOwnPostgres(binDir: string): Promise<OwnPostgres> {
  const directory = mkdtempSync(join(tmpdir(), "weft-faults-pg-"));
  // The postgres user must reach its data dir inside a directory created by root.
  chmodSync(directory, 0o777);
  const dataDir = join(directory, "data");
  const port = await freePort();
  await asPostgres(join(binDir, "initdb"), ["-D", dataDir, "-A", "trust", "-U", "postgres"]);
  const pgCtl = join(binDir, "pg_ctl");
  const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  await asPostgres(pgCtl, ["-D", dataDir, "-l", join(directory, "log"), "-o", serverOptions, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restartImmediately: async () => {
      await asPostgres(pgCtl, [
        "-D",
        dataDir,
        "-l",
        join(directory, "log"),
        "-o",
        serverOptions,
        "-m",
        "immediate",
        "-w",
        "restart",
      ]);
    },
    stop: async () => {
      await asPostgres(pgCtl, ["-D", dataDir, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
