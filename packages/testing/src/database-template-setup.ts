import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeDatabaseTemplates } from "./test-database.ts";

/**
 * Vitest's global setup: migrates the databases every test file's database is copied from, once per
 * run, before any test process starts (they inherit the variables naming them).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const directory = mkdtempSync(join(tmpdir(), "weft-test-templates-"));
  const removeTemplates = await makeDatabaseTemplates(directory);
  return async () => {
    await removeTemplates();
    rmSync(directory, { recursive: true, force: true });
  };
}
