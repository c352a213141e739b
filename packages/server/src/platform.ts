import { defaultAlertPacing } from "./alerts/alert-policy.ts";
import { queueReadingIntervalMs, startBackpressure } from "./backpressure/backpressure.ts";
import { createQuotaGate } from "./billing/quota-gate.ts";
import { findUnconfiguredPlans, unconfiguredPlansWarning } from "./billing/unconfigured-plans.ts";
import type { Config } from "./config/config.ts";
import { type DatabaseHandle, openDatabase } from "./db/database.ts";
import { retryWhileUnavailable } from "./db/database-unavailable.ts";
import {
  createActiveDeploymentChanges,
  relayActiveDeploymentChanges,
} from "./deployments/active-deployment-changes.ts";
import { createEgressPolicy } from "./engine/egress/address-policy.ts";
import { type ResolveHost, resolveWithSystem } from "./engine/egress/resolve-host.ts";
import { decideSandbox } from "./engine/sandbox/sandbox-isolation.ts";
import { waitTokenIssuer } from "./engine/wait-token-ids.ts";
import { startWorker, type Worker } from "./engine/worker.ts";
import { workspaceSlots } from "./engine/workspace-share.ts";
import { endStatementParts, workerFeatures } from "./engine-features.ts";
import { listen } from "./http/http-server.ts";
import { createRequestListener } from "./http/request-listener.ts";
import { createMembershipChanges, relayAccessChanges } from "./identity/access-changes.ts";
import { createCredentialRevocations } from "./identity/credential-revocations.ts";
import { integrationKeyring } from "./integrations/secret-sealing.ts";
import { createMailer } from "./mail/mailer.ts";
import { type OperatorSocket, operatorSocketPath, startOperatorSocket } from "./operator/operator-socket.ts";
import { type PeriodicJobs, startPeriodicJobs } from "./periodic-jobs/periodic-jobs.ts";
import type { PlatformContext } from "./platform-context.ts";
import { type Clock, systemClock } from "./shared/clock.ts";
import { createGuardedFetch } from "./shared/guarded-fetch.ts";
import { createIdGenerator } from "./shared/ids.ts";
import { createLogger, type Logger } from "./shared/logger.ts";
import { systemTimers, type Timers } from "./shared/timers.ts";
import { createFirstAccountLinks } from "./studio/session/first-account-link.ts";
import { createOtlpSpanExport } from "./traces/otlp-export.ts";

export interface PlatformOptions {
  clock?: Clock;
  logger?: Logger;
  timers?: Timers;
  /** An already-open database, left open on stop (tests hand in their own); otherwise the configured one is opened and closed. */
  database?: DatabaseHandle;
  /** How the sandboxes' egress proxy resolves host names (tests map names to loopback with it). */
  resolveHost?: ResolveHost;
  /**
   * When the ingesting roles read the queue for backpressure: every second (by default), or only
   * when `backpressure.refresh()` is called, for tests whose manual clock jumps ahead of the queue.
   */
  queueReading?: "periodic" | "on request";
}

export interface RunningPlatform {
  context: PlatformContext;
  /** The worker of this process, when the `worker` role runs here. */
  worker: Worker | undefined;
  /** The periodic jobs (schedules, notices, statements, roll-ups, retention), beside the worker. */
  periodicJobs: PeriodicJobs | undefined;
  /** The address the process listens on, e.g. http://127.0.0.1:3000. */
  listenUrl: string;
  port: number;
  stop(): Promise<void>;
}

/** Time left to in-flight requests on shutdown before their connections are cut. */
const drainGraceMs = 8000;

/**
 * Opens the database, applies migrations and serves every configured role until stopped. `config`
 * comes from `loadConfig`, its keys already loaded.
 */
export async function startPlatform(config: Config, options: PlatformOptions = {}): Promise<RunningPlatform> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  // Decided once per process, and only where workflows run: the worker role.
  const sandbox = config.roles.has("worker") ? await decideSandbox(config.sandbox) : undefined;
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await openDatabase(config.database));
  // The collector gets each finished execution's spans, whichever process finishes it: a worker, or
  // the API cancelling a queued, sleeping or waiting execution.
  const spanExport =
    config.otlpEndpoint === undefined
      ? undefined
      : createOtlpSpanExport({ db: database.db, endpoint: config.otlpEndpoint, logger });
  const planWarning = unconfiguredPlansWarning(
    await retryWhileUnavailable(() => findUnconfiguredPlans(database.db, config.billing)),
    config.billing.defaultPlan,
  );
  if (planWarning !== undefined) logger.warn(planWarning);
  const mailer = createMailer(config, clock, logger);
  const timers = options.timers ?? systemTimers;
  const resolveHost = options.resolveHost ?? resolveWithSystem;
  const outbound = createGuardedFetch({ policy: createEgressPolicy(config.sandbox.egressAllow), resolveHost, timers });
  const worker =
    sandbox === undefined
      ? undefined
      : await startWorker(
          {
            database,
            features: workerFeatures(
              { db: database.db, clock },
              { billing: config.billing, keyring: integrationKeyring(config) },
            ),
            clock,
            logger,
            spanExport,
            resolveHost: options.resolveHost,
          },
          { ...config.worker, dataDir: config.dataDir, sandbox, tokens: waitTokenIssuer(config) },
        );
  const periodicJobs =
    worker === undefined
      ? undefined
      : startPeriodicJobs(
          {
            db: database.db,
            clock,
            logger,
            catalogue: config.billing,
            alerts: { mailer, outbound, pacing: defaultAlertPacing, keyring: integrationKeyring(config) },
          },
          { intervalMs: config.worker.pollIntervalMs, retention: config.worker.retention },
        );
  const backpressure =
    config.roles.has("ingress") || config.roles.has("api")
      ? startBackpressure(
          { db: database.db, clock, logger, timers },
          {
            maxQueueDelaySeconds: config.maxQueueDelaySeconds,
            slotsPerAccount: workspaceSlots(config.worker.concurrency, config.worker.workspaceShare),
            intervalMs: options.queueReading === "on request" ? undefined : queueReadingIntervalMs,
          },
        )
      : undefined;
  const context: PlatformContext = {
    config,
    database,
    clock,
    ids: createIdGenerator(clock),
    logger,
    timers,
    credentialRevocations: createCredentialRevocations(),
    membershipChanges: createMembershipChanges(),
    activeDeploymentChanges: createActiveDeploymentChanges(),
    mailer,
    spanExport,
    endStatementParts,
    resolveHost,
    outbound,
    sandbox,
    quotas: createQuotaGate({ db: database.db, clock, catalogue: config.billing }),
    backpressure,
    firstAccountLinks: createFirstAccountLinks(clock),
    localStarts: worker?.localStarts,
  };
  // Ingress caches which deployment is active, so it listens for other processes' changes before serving.
  const stopRelaying = config.roles.has("ingress")
    ? await retryWhileUnavailable(() => relayActiveDeploymentChanges(database, context.activeDeploymentChanges))
    : undefined;
  // Cached principals must not outlive a revocation or membership change made by another process.
  const stopRelayingAccess = await retryWhileUnavailable(() => relayAccessChanges(database, context));
  const requests = createRequestListener(context);
  const http = await listen(requests.listener, config.port, config.host);
  const operatorSocket = await startOperatorSocketOf(config, ownsDatabase ? database : undefined, logger);
  let stopping: Promise<void> | undefined;
  return {
    context,
    worker,
    periodicJobs,
    listenUrl: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${http.port}`,
    port: http.port,
    stop: () => {
      stopping ??= (async () => {
        await operatorSocket?.close();
        await http.close(drainGraceMs);
        await requests.close();
        await stopRelayingAccess().catch(() => undefined);
        // The database may be closed already, as when its server went away.
        await stopRelaying?.().catch(() => undefined);
        await backpressure?.stop();
        await worker?.stop();
        await periodicJobs?.stop();
        await spanExport?.shutdown();
        if (ownsDatabase) await database.close();
      })();
      return stopping;
    },
  };
}

/**
 * On the embedded database, which only this process may open, operator commands (`weft server
 * set-plan`) reach the platform through a socket in the data directory. A socket that cannot be
 * made (a data directory path too long for one) leaves them needing the platform stopped.
 */
async function startOperatorSocketOf(
  config: Config,
  database: DatabaseHandle | undefined,
  logger: Logger,
): Promise<OperatorSocket | undefined> {
  if (database === undefined || config.database.kind !== "embedded") return undefined;
  const path = operatorSocketPath(config.dataDir);
  try {
    return await startOperatorSocket(path, { db: database.db, catalogue: config.billing, logger });
  } catch (error) {
    logger.warn(
      { err: error, path },
      "operator commands cannot reach this platform (no socket in its data directory): stop it to run them",
    );
    return undefined;
  }
}
