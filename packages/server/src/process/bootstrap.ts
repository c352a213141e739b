import { defaultAlertPacing } from "../alerts/alert-policy.ts";
import { rotateWebhookSecrets } from "../alerts/rotate-webhook-secrets.ts";
import type { Config, ParsedConfig } from "../config/config.ts";
import { loadConfig } from "../config/load-config.ts";
import { ConfigError, type Environment, parseConfig } from "../config/parse-config.ts";
import { loadOrCreateSecretKey } from "../config/secret-key.ts";
import { DataDirLockedError } from "../db/data-dir-lock.ts";
import { type DatabaseHandle, openDatabase } from "../db/database.ts";
import { createEgressPolicy } from "../engine/egress/address-policy.ts";
import { resolveWithSystem } from "../engine/egress/resolve-host.ts";
import { cgroupsInForce } from "../engine/sandbox/sandbox-cgroups.ts";
import { decideSandbox, SandboxUnavailableError } from "../engine/sandbox/sandbox-isolation.ts";
import { waitTokenIssuer } from "../engine/wait-token-ids.ts";
import { startWorker } from "../engine/worker.ts";
import { workerFeatures } from "../engine-features.ts";
import { rotateIntegrationSecrets } from "../integrations/rotate-secret-key.ts";
import { integrationKeyring } from "../integrations/secret-sealing.ts";
import { devMailboxStartUpLine } from "../mail/dev-mailbox-line.ts";
import { createMailer } from "../mail/mailer.ts";
import { type OperatorAnswer, type OperatorCommand, operatorCommands } from "../operator/operator-commands.ts";
import { operatorSocketPath, sendOperatorCommand } from "../operator/operator-socket.ts";
import { startPeriodicJobs } from "../periodic-jobs/periodic-jobs.ts";
import { startPlatform } from "../platform.ts";
import { systemClock } from "../shared/clock.ts";
import { createGuardedFetch } from "../shared/guarded-fetch.ts";
import { createLogger } from "../shared/logger.ts";
import { reduceMemory } from "../shared/reduce-memory.ts";
import { systemTimers } from "../shared/timers.ts";
import { studioStartUpLine } from "../studio/studio-start-up-line.ts";
import { createOtlpSpanExport } from "../traces/otlp-export.ts";
import { stopOnSignals } from "./process-lifecycle.ts";

/**
 * What a process runs: `platform` serves every role WEFT_ROLES names (`npm start`, `weft server`);
 * `worker` only runs workflow executions (`weft worker`).
 */
export type ProcessKind = "platform" | "worker" | "rotate-secret-key" | "set-plan";

const programs: Record<ProcessKind, string> = {
  platform: "weft",
  worker: "weft worker",
  "rotate-secret-key": "weft server rotate-secret-key",
  "set-plan": "weft server set-plan",
};

/**
 * The one start-up of every entry point: reads the configuration from `env` (never from
 * `process.env` itself, so a command line's settings are an argument, not a mutation), starts,
 * prints the start-up lines and stops gracefully on SIGTERM/SIGINT. A bad configuration or a
 * sandbox that cannot be had ends the process with one line on stderr and exit code 1.
 */
export async function bootstrap(env: Environment, kind: ProcessKind, args: readonly string[] = []): Promise<void> {
  const program = programs[kind];
  try {
    if (kind === "rotate-secret-key") {
      await rotateSecretKey(loadConfig(env));
    } else if (kind === "set-plan") {
      await setPlan(parseConfig({ ...env, WEFT_ROLES: "api" }), args);
    } else if (kind === "worker") {
      // This process plays the worker role only, whatever WEFT_ROLES says, so the rules of the
      // serving roles (such as the dev mailbox's refusal of a non-loopback HOST) do not stop it; it
      // needs none of the keys of the data dir either.
      await runWorker(parseConfig({ ...env, WEFT_ROLES: "worker" }));
    } else {
      await runPlatform(loadConfig(env));
    }
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`${program}: invalid configuration: ${error.message}`);
    if (error instanceof SandboxUnavailableError || error instanceof DataDirLockedError) {
      exitWith(`${program}: cannot start: ${error.message}`);
    }
    throw error;
  }
}

function exitWith(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Rows re-sealed per transaction: small enough that a batch holds its row locks only briefly. */
const rotationBatchSize = 100;

/**
 * Re-seals every stored integration secret and alert webhook secret under WEFT_SECRET_KEY, opening them with
 * WEFT_SECRET_KEY_PREVIOUS; prints one progress line per batch. Safe to run again after a stop.
 */
async function rotateSecretKey(config: Config): Promise<void> {
  const database = await openDatabase(config.database);
  try {
    const keyring = integrationKeyring(config);
    const done = await rotateIntegrationSecrets(database.db, keyring, {
      batchSize: rotationBatchSize,
      onBatch: (progress) =>
        process.stdout.write(
          `re-sealed ${progress.resealed}, unopenable ${progress.unopenable}, left under another key ${progress.remaining}\n`,
        ),
    });
    const webhooks = await rotateWebhookSecrets(database.db, keyring, { batchSize: rotationBatchSize });
    if (done.unopenable > 0 || webhooks.unopenable > 0) {
      process.stderr.write(
        `weft server rotate-secret-key: ${done.unopenable} integration(s) and ${webhooks.unopenable} alert webhook secret(s) opened with neither WEFT_SECRET_KEY nor WEFT_SECRET_KEY_PREVIOUS; set WEFT_SECRET_KEY_PREVIOUS to the key they were sealed with and run again\n`,
      );
      process.exitCode = 1;
      return;
    }
    process.stdout.write(
      `Done: every integration secret is sealed under the current key (${done.resealed} re-sealed), and every alert webhook secret (${webhooks.resealed} re-sealed).\n`,
    );
  } finally {
    await database.close();
  }
}

/**
 * Puts the workspace `args[0]` on the plan `args[1]`; an unknown plan or workspace ends with code 1.
 * When a running platform holds the embedded database, the command goes to it through its socket.
 */
async function setPlan(config: ParsedConfig, args: readonly string[]): Promise<void> {
  const answer = await runOperatorCommand(config, "set-plan", args);
  if (answer.ok) process.stdout.write(`${answer.message}\n`);
  else {
    process.stderr.write(`weft server set-plan: ${answer.message}\n`);
    process.exitCode = 1;
  }
}

async function runOperatorCommand(
  config: ParsedConfig,
  command: OperatorCommand,
  args: readonly string[],
): Promise<OperatorAnswer> {
  let database: DatabaseHandle;
  try {
    database = await openDatabase(config.database);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    // A holder that answers no operator command (a platform that made no socket, or another
    // command's process) is to be stopped first, as the lock's message says.
    return sendOperatorCommand(operatorSocketPath(config.dataDir), command, args).catch(
      (): OperatorAnswer => ({ ok: false, message: error.message }),
    );
  }
  try {
    return await operatorCommands[command]({ db: database.db, catalogue: config.billing }, args);
  } finally {
    await database.close();
  }
}

async function runPlatform(config: Config): Promise<void> {
  const platform = await startPlatform(config);
  // Before announcing readiness: whoever waits for the line below may signal at once, and a signal
  // that arrives before a handler exists ends the process without a graceful stop.
  stopOnSignals(platform.context.logger, () => platform.stop(), "platform");
  reduceMemory();
  const where = config.database.kind === "embedded" ? `embedded database in ${config.dataDir}` : "PostgreSQL server";
  const sandbox = platform.context.sandbox;
  const isolation =
    sandbox === undefined
      ? ""
      : `; sandbox: ${sandbox.mode === "bwrap" ? `bubblewrap, egress ${sandbox.egress}` : "plain processes, NOT isolated"}, cgroups ${cgroupsInForce(sandbox)}`;
  process.stdout.write(
    `Weft is running at ${config.baseUrl} (listening on ${platform.listenUrl}; roles: ${[...config.roles].join(", ")}; data: ${where}${isolation})\n`,
  );
  const outbox = platform.context.mailer.outbox;
  if (outbox !== undefined) {
    const line = devMailboxStartUpLine(
      { baseUrl: config.baseUrl, dataDir: config.dataDir, key: outbox.key },
      process.stdout.isTTY === true,
    );
    process.stdout.write(`${line}\n`);
  }
  if (config.roles.has("api")) {
    process.stdout.write(`${await studioStartUpLine(platform.context, process.stdout.isTTY === true)}\n`);
  }
}

async function runWorker(config: ParsedConfig): Promise<void> {
  const logger = createLogger({ level: config.logLevel });
  const sandbox = await decideSandbox(config.sandbox);
  const database = await openDatabase(config.database);
  const spanExport =
    config.otlpEndpoint === undefined
      ? undefined
      : createOtlpSpanExport({ db: database.db, endpoint: config.otlpEndpoint, logger });
  const secretKey = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);
  const keyring = integrationKeyring({ secretKey, secretKeyPrevious: config.secretKeyPrevious });
  const worker = await startWorker(
    {
      database,
      features: workerFeatures({ db: database.db, clock: systemClock }, { billing: config.billing, keyring }),
      clock: systemClock,
      logger,
      spanExport,
    },
    {
      ...config.worker,
      dataDir: config.dataDir,
      sandbox,
      // Wait token ids must be the ones the other processes of this database would make: the shared key.
      tokens: waitTokenIssuer({ secretKey, baseUrl: config.baseUrl }),
    },
  );
  const periodicJobs = startPeriodicJobs(
    {
      db: database.db,
      clock: systemClock,
      logger,
      catalogue: config.billing,
      alerts: {
        // The dev outbox lives in the process that serves /dev/mailbox, not in a worker: a worker
        // process sends notices by SMTP, or drops mailed ones with a warning.
        mailer: createMailer(
          { mailFrom: config.mailFrom, mail: config.mail.kind === "smtp" ? config.mail : { kind: "dropped" } },
          systemClock,
          logger,
        ),
        outbound: createGuardedFetch({
          policy: createEgressPolicy(config.sandbox.egressAllow),
          resolveHost: resolveWithSystem,
          timers: systemTimers,
        }),
        pacing: defaultAlertPacing,
        keyring,
      },
    },
    { intervalMs: config.worker.pollIntervalMs, retention: config.worker.retention },
  );
  // Before announcing readiness: a signal that arrives before a handler exists ends the process at once.
  stopOnSignals(
    logger,
    async () => {
      await worker.stop();
      await periodicJobs.stop();
      await spanExport?.shutdown();
      await database.close();
    },
    "worker",
  );
  reduceMemory();
  process.stdout.write(
    `Weft worker ${worker.id} is running (concurrency ${config.worker.concurrency}; sandbox: ${sandbox.mode}, egress ${sandbox.egress}, cgroups ${cgroupsInForce(sandbox)})\n`,
  );
}
