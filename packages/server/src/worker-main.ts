import { openDatabase } from "./db/database.ts";
import { decideSandbox, SandboxUnavailableError } from "./engine/sandbox/sandbox-isolation.ts";
import { startWorker } from "./engine/worker.ts";
import { parseConfigOrExit, stopOnSignals } from "./process/process-lifecycle.ts";
import { systemClock } from "./shared/clock.ts";
import { createLogger } from "./shared/logger.ts";
import { createOtlpSpanExport } from "./traces/otlp-export.ts";

/**
 * Entry point of `weft worker`: a process that only runs workflow executions, claiming them from
 * the database that DATABASE_URL names. Any number of them can share one PostgreSQL server.
 */
// This process plays the worker role only, whatever WEFT_ROLES says, so the rules of the serving
// roles (such as the dev mailbox's refusal of a non-loopback HOST) do not stop it.
const config = parseConfigOrExit({ ...process.env, WEFT_ROLES: "worker" }, "weft worker");
const logger = createLogger({ level: config.logLevel });
const sandbox = await decideSandbox(config.sandbox).catch((error: unknown) => {
  if (!(error instanceof SandboxUnavailableError)) throw error;
  process.stderr.write(`weft worker: cannot start: ${error.message}\n`);
  process.exit(1);
});
const database = await openDatabase(config.database);
const spanExport =
  config.otlpEndpoint === undefined
    ? undefined
    : createOtlpSpanExport({ db: database.db, endpoint: config.otlpEndpoint, logger });
const worker = await startWorker(
  { database, clock: systemClock, logger, spanExport },
  { ...config.worker, dataDir: config.dataDir, sandbox },
);
// Before announcing readiness: a signal that arrives before a handler exists ends the process at once.
stopOnSignals(
  logger,
  async () => {
    await worker.stop();
    await spanExport?.shutdown();
    await database.close();
  },
  "worker",
);
process.stdout.write(
  `Weft worker ${worker.id} is running (concurrency ${config.worker.concurrency}; sandbox: ${sandbox.mode}, egress ${sandbox.egress})\n`,
);
