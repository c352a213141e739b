import { PGlite } from "@electric-sql/pglite";

/**
 * How the embedded database commits (`WEFT_EMBEDDED_DURABILITY`): `full` flushes each commit to the
 * disk before it is acknowledged; `relaxed` leaves the flush to the operating system, so a power
 * loss can lose acknowledged work (a crash of the process alone loses nothing either way).
 */
export const embeddedDurabilities = ["full", "relaxed"] as const;
export type EmbeddedDurability = (typeof embeddedDurabilities)[number];

/**
 * PostgreSQL's command line for a durability. PGlite starts it with `-F` (fsync off), which
 * overrides anything postgresql.conf says, so `full` leaves that out. Its WAL is then synced with
 * `fsync()`, the one call that reaches the file system's flush (`DurableNodeFS`): PGlite's
 * `fdatasync()`, PostgreSQL's default on Linux, returns without doing anything.
 */
export function embeddedStartParams(durability: EmbeddedDurability): string[] {
  if (durability === "relaxed") return PGlite.defaultStartParams;
  return [
    ...PGlite.defaultStartParams.filter((parameter) => parameter !== "-F"),
    "-c",
    "fsync=on",
    "-c",
    "wal_sync_method=fsync",
  ];
}
