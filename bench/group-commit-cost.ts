import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDeployment,
  createEnqueueBatcher,
  createIdGenerator,
  systemClock,
  valueOrThrow,
} from "@weft/server/internals";
import { createTestDatabase, ensureTestProject } from "@weft/testing";

export interface GroupCommitBenchOptions {
  commits: number;
  write: (line: string) => void;
}

/** Commits before the measure, so that caches, plans and the files' first growth are behind it. */
const warmUpCommits = 500;

/**
 * What one group commit of one webhook (the case of a single connection) costs: the CPU time of
 * this process, which the embedded database runs in, over sequential one-webhook commits through
 * the ingress's batcher, on an on-disk PGlite as `npm start` keeps it. CPU time rather than requests
 * per second, because on a shared machine it is what other load changes least; no HTTP, so that
 * the database's share is not diluted.
 */
export async function runGroupCommitBench(options: GroupCommitBenchOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-commit-"));
  const database = await createTestDatabase(false, { embeddedDataDir: dataDir });
  try {
    const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
    const projectId = "prj_01jbenchcommit000000000000000";
    await ensureTestProject(database.db, deps, projectId);
    const deployment = valueOrThrow(
      await createDeployment(database.db, deps, {
        projectId,
        manifest: { version: 1, workflows: [{ name: "ingest" }] },
        bundle: "export default {};",
      }),
    );
    const batcher = createEnqueueBatcher({ db: database.db, ...deps });
    const commit = (order: number) =>
      batcher.enqueue({
        request: {
          projectId,
          deploymentId: deployment.id,
          workflow: "ingest",
          input: { order },
          trigger: { kind: "webhook", name: "orders" },
        },
        workflow: { name: "ingest" },
      });
    for (let order = 0; order < warmUpCommits; order++) await commit(order);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let order = 0; order < options.commits; order++) await commit(order);
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - started;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    options.write(
      `Group commit of one webhook (embedded database, batcher alone, ${options.commits} sequential commits): ` +
        `${(cpuMs / options.commits).toFixed(2)} ms of CPU and ${(wallMs / options.commits).toFixed(2)} ms of wall time each`,
    );
  } finally {
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
