/**
 * The platform's building blocks that the workspace's test kit (`@weft/testing`) and benchmarks
 * (`bench/`) assemble: services, schema and injectable dependencies. Not a stable API; the lint
 * rules let no other package import it (see docs/decisions/0060-package-order.md).
 */
export { allScopes, type Scope } from "@weft/contract";
export { defaultMaxQueueDelaySeconds } from "./backpressure/backpressure.ts";
export { unlimitedPlan } from "./billing/plans.ts";
export {
  type Database,
  type DatabaseHandle,
  openDatabase,
  startEmbeddedCluster,
  type Transaction,
  useEmbedded,
  usePostgres,
} from "./db/database.ts";
export { pgliteWasmModule } from "./db/pglite-wasm-module.ts";
export { credentials, executionSteps, executions, projects, spans, waitTokens } from "./db/schema/index.ts";
export { createDeployment } from "./deployments/create-deployment.ts";
export { getActiveDeployment } from "./deployments/read-deployments.ts";
export type { EgressAllowEntry } from "./engine/egress/address-policy.ts";
export type { ResolveHost } from "./engine/egress/resolve-host.ts";
export { createEnqueueBatcher } from "./engine/enqueue-batcher.ts";
export { enqueueExecution } from "./engine/enqueue-execution.ts";
export { type ClaimRequest, claim } from "./engine/execution-state/claim.ts";
export type { EndStatementParts } from "./engine/execution-state/end-statement-parts.ts";
export { cancel, fail, finalStates, isFinal, succeed } from "./engine/execution-state/index.ts";
export { endedCondition, unfinishedCondition } from "./engine/execution-state/status-conditions.ts";
export { maxChannelFrameBytes } from "./engine/limits.ts";
export type { LocalStarts } from "./engine/local-starts.ts";
export { processTreeRssBytes } from "./engine/sandbox/process-tree-memory.ts";
export type { SandboxConfig } from "./engine/sandbox/sandbox-config.ts";
export { startSandboxHost } from "./engine/sandbox/sandbox-host.ts";
export { resolveSandboxIsolation, type SandboxIsolation } from "./engine/sandbox/sandbox-isolation.ts";
export { killSandboxProcess } from "./engine/sandbox/sandbox-process-group.ts";
export { sqlRows } from "./engine/sql-rows.ts";
export { newSpanId } from "./engine/trace-ids.ts";
export { tokenHashOf, waitTokenIssuer } from "./engine/wait-token-ids.ts";
export { startWorker, type Worker, type WorkerDependencies, type WorkerOptions } from "./engine/worker.ts";
export { endStatementParts, type WorkerFeatureSettings, workerFeatures } from "./engine-features.ts";
export { sendEvent } from "./events/send-event.ts";
export { findOrCreateAccount } from "./identity/accounts.ts";
export { issueCredential } from "./identity/credentials.ts";
export { type PeriodicJobs, startPeriodicJobs } from "./periodic-jobs/periodic-jobs.ts";
export { defaultRetentionPeriods, pruneHistory, retentionPacing } from "./retention/prune-history.ts";
export { type Clock, createManualClock, type ManualClock, systemClock } from "./shared/clock.ts";
export { createIdGenerator, type IdGenerator } from "./shared/ids.ts";
export { createLogger, type Logger } from "./shared/logger.ts";
export { reduceMemory } from "./shared/reduce-memory.ts";
export { type ServiceResult, valueOrThrow } from "./shared/service-result.ts";
export { systemTimers, type Timers } from "./shared/timers.ts";
export { rollUpExecutionCounts } from "./studio/execution-count-roll-up.ts";
export { runWorkflow } from "./workflows/run-workflow.ts";
