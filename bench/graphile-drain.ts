import { randomBytes } from "node:crypto";
import { Logger, makeWorkerUtils, run } from "graphile-worker";
import pg from "pg";

/**
 * The drain of a graphile-worker queue in its default configuration (one job at a time, its own
 * pool) on a fresh database of the same PostgreSQL server: `count` no-op jobs added first, then a
 * runner started on the pool; the time from its start to the last job's completion.
 */
export async function graphileDrain(
  postgresUrl: string,
  count: number,
): Promise<{ seconds: number; perSecond: number }> {
  const name = `graphile_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  // Its default pool size (10), ended here before the database is dropped.
  const pgPool = new pg.Pool({ connectionString: url.toString(), max: 10 });
  // An idle connection that fails is replaced by the pool; the drain's own queries report their errors.
  pgPool.on("error", () => {});
  pgPool.on("connect", (client) => client.on("error", () => {}));
  const logger = new Logger(() => () => {});
  try {
    const utils = await makeWorkerUtils({ pgPool, logger });
    try {
      await utils.migrate();
      for (let added = 0; added < count; added += 1000) {
        const batch = Math.min(1000, count - added);
        await utils.addJobs(Array.from({ length: batch }, () => ({ identifier: "noop", payload: {} })));
      }
    } finally {
      await utils.release();
    }
    let done = 0;
    let finishedAt = 0;
    let allDone: () => void = () => {};
    const drained = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const started = performance.now();
    const runner = await run({
      pgPool,
      logger,
      noHandleSignals: true,
      taskList: {
        noop: async () => {
          done += 1;
          if (done === count) {
            finishedAt = performance.now();
            allDone();
          }
        },
      },
    });
    try {
      await drained;
    } finally {
      await runner.stop();
    }
    const seconds = (finishedAt - started) / 1000;
    return { seconds, perSecond: count / seconds };
  } finally {
    await pgPool.end();
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  }
}
