import type { Backpressure } from "./backpressure/backpressure.ts";
import type { QuotaGate } from "./billing/quota-gate.ts";
import type { Config } from "./config/config.ts";
import type { DatabaseHandle } from "./db/database.ts";
import type { ActiveDeploymentChanges } from "./deployments/active-deployment-changes.ts";
import type { ResolveHost } from "./engine/egress/resolve-host.ts";
import type { EndStatementParts } from "./engine/execution-state/end-statement-parts.ts";
import type { LocalStarts } from "./engine/local-starts.ts";
import type { SandboxIsolation } from "./engine/sandbox/sandbox-isolation.ts";
import type { SpanExport } from "./engine/span-export.ts";
import type { MembershipChanges } from "./identity/access-changes.ts";
import type { CredentialRevocations } from "./identity/credential-revocations.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { Clock } from "./shared/clock.ts";
import type { GuardedFetch } from "./shared/guarded-fetch.ts";
import type { IdGenerator } from "./shared/ids.ts";
import type { Logger } from "./shared/logger.ts";
import type { Timers } from "./shared/timers.ts";
import type { FirstAccountLinks } from "./studio/session/first-account-link.ts";

/** What every service and adapter of a running platform process may depend on. */
export interface PlatformContext {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Deadlines (the ingress hot-path budget) are scheduled through it, so tests can make them pass. */
  timers: Timers;
  credentialRevocations: CredentialRevocations;
  /** Accounts whose memberships changed, this process's and every other's: their cached principals are stale. */
  membershipChanges: MembershipChanges;
  /** Changes of projects' active deployments, this process's and (with the ingress role) every other's. */
  activeDeploymentChanges: ActiveDeploymentChanges;
  mailer: Mailer;
  /** The OTLP exporter, when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  spanExport: SpanExport | undefined;
  /** What the features record in the statement that ends an execution (`endStatementParts`): the API's cancel ends one. */
  endStatementParts: EndStatementParts;
  /** How outbound fetches resolve host names (the key sets of WEFT_TRUSTED_ISSUERS, and `outbound`'s). */
  resolveHost: ResolveHost;
  /** Every request made on a tenant's behalf: federation issuers, client metadata documents, alert webhooks. */
  outbound: GuardedFetch;
  /** The isolation of workflow code in force, when this process runs the worker role. */
  sandbox: SandboxIsolation | undefined;
  /** Whether a project may start another execution under its workspace's plan (cached counters). */
  quotas: QuotaGate;
  /**
   * Whether a project may queue another execution while executions already queued wait for a
   * worker (a cached reading of the queue), in a process that ingests: the `ingress` or `api` role.
   */
  backpressure: Backpressure | undefined;
  /** The link a fresh embedded server prints to make its first account (held in this process only). */
  firstAccountLinks: FirstAccountLinks;
  /** On the embedded database, this process's worker, which ingress may hand a new execution to at once. */
  localStarts: LocalStarts | undefined;
}
