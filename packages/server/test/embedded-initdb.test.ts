import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.ts";
import { createEmbeddedCluster } from "../src/db/embedded-initdb.ts";
import { accounts } from "../src/db/schema/index.ts";

describe("the embedded database of a new data directory", () => {
  it("is made by initdb in a process of its own, what an interrupted start left beside it replaced", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-initdb-"));
    const leftover = join(dataDir, "pgdata.initdb");
    mkdirSync(leftover);
    writeFileSync(join(leftover, "PG_VERSION"), "a half-made cluster\n");

    const database = await openDatabase({ kind: "embedded", dataDir, durability: "relaxed" });
    try {
      // Migrated: the platform's tables are there.
      expect(await database.db.select().from(accounts)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(existsSync(join(dataDir, "pgdata", "PG_VERSION"))).toBe(true);
    expect(readdirSync(dataDir)).not.toContain("pgdata.initdb");
  }, 120_000);

  it("names the directory when initdb fails, and leaves nothing of its work", async () => {
    const parent = mkdtempSync(join(tmpdir(), "weft-initdb-"));
    // A file where the work directory's parent should be: initdb cannot make a directory there.
    writeFileSync(join(parent, "file"), "");
    const directory = join(parent, "file", "pgdata");

    await expect(createEmbeddedCluster(directory)).rejects.toThrow(
      `creating the embedded database in ${directory} failed (initdb exited with code 1)`,
    );
    expect(readdirSync(parent)).toEqual(["file"]);
  }, 120_000);
});
