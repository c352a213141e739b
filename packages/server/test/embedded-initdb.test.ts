import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.ts";
import { clusterTemplateFile, shippedClusterSource } from "../src/db/embedded-cluster-template.ts";
import { createEmbeddedCluster } from "../src/db/embedded-initdb.ts";
import { installedPgliteVersion } from "../src/db/pglite-package.ts";
import { accounts } from "../src/db/schema/index.ts";

const shippedFile = clusterTemplateFile(installedPgliteVersion() ?? "(no version)");

/** Every file and directory under `directory`, as paths relative to it, sorted. */
function tree(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" }).sort();
}

describe("the embedded database of a new data directory", () => {
  it("starts from the cluster shipped for the installed PGlite", () => {
    const source = shippedClusterSource();
    expect(
      source,
      `no cluster is shipped for this PGlite: run \`npm run db:embedded-cluster\` and commit ${shippedFile}`,
    ).toEqual({ kind: "template", file: shippedFile });
  });

  it("is the same cluster unpacked from the template as initdb makes, and PGlite opens it", async () => {
    const parent = mkdtempSync(join(tmpdir(), "weft-initdb-"));
    const unpacked = join(parent, "unpacked");
    const initialized = join(parent, "initialized");
    try {
      await createEmbeddedCluster(unpacked, { kind: "template", file: shippedFile });
      await createEmbeddedCluster(initialized, { kind: "initdb" });

      expect(tree(unpacked)).toEqual(tree(initialized));
      expect(readFileSync(join(unpacked, "PG_VERSION"), "utf8")).toBe(
        readFileSync(join(initialized, "PG_VERSION"), "utf8"),
      );
      expect(readdirSync(parent).sort()).toEqual(["initialized", "unpacked"]);
      const pglite = await PGlite.create({ dataDir: unpacked });
      try {
        const { rows } = await pglite.query<{ name: string }>("select current_database() as name");
        expect(rows).toEqual([{ name: "postgres" }]);
      } finally {
        await pglite.close();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 120_000);

  it("is made where an interrupted start left a half-made one beside it", async () => {
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

    await expect(createEmbeddedCluster(directory, { kind: "initdb" })).rejects.toThrow(
      `creating the embedded database in ${directory} failed (initdb exited with code 1)`,
    );
    expect(readdirSync(parent)).toEqual(["file"]);
  }, 120_000);

  it("names the directory and the template when unpacking fails, and leaves nothing of its work", async () => {
    const parent = mkdtempSync(join(tmpdir(), "weft-initdb-"));
    const directory = join(parent, "pgdata");
    const template = join(parent, "damaged.tar.br");
    writeFileSync(template, "not Brotli");

    await expect(createEmbeddedCluster(directory, { kind: "template", file: template })).rejects.toThrow(
      `creating the embedded database in ${directory} failed (unpacking ${template}): `,
    );
    expect(readdirSync(parent)).toEqual(["damaged.tar.br"]);
  });
});
