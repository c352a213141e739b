import type { Context } from "hono";
import { acceptedSecretKeys } from "../config/secret-key.ts";
import { isDatabaseUnavailable } from "../db/database-unavailable.ts";
import { createEnqueueBatcher, type EnqueueBatcher } from "../engine/enqueue-batcher.ts";
import type { AppEnv } from "../http/app-env.ts";
import { requestLogger } from "../http/request-context.ts";
import type { PlatformContext } from "../platform-context.ts";
import { createActiveDeploymentReader } from "./active-deployment-reader.ts";
import { deriveCsrfKey } from "./csrf-token.ts";
import { createManifestCache, type DefinitionLookup } from "./find-ingress-definitions.ts";
import {
  type Budget,
  type BudgetOutcome,
  budgetRetryAfterSeconds,
  hotPathBudgetMs,
  withinBudget,
} from "./hot-path-budget.ts";

/** What the ingress routes share: the platform's dependencies and the key CSRF tokens are signed with. */
export interface IngressContext {
  platform: PlatformContext;
  csrfKey: Buffer;
  /** The keys a presented token is checked under: `csrfKey`, then the one before a rotation. */
  csrfCheckKeys: readonly Buffer[];
  definitions: DefinitionLookup;
  /** Group commit of the executions that submissions without an idempotency key start. */
  enqueues: EnqueueBatcher;
}

export function createIngressContext(platform: PlatformContext): IngressContext {
  return {
    platform,
    csrfKey: deriveCsrfKey(platform.config.secretKey),
    csrfCheckKeys: acceptedSecretKeys(platform.config).map(deriveCsrfKey),
    definitions: {
      db: platform.database.db,
      manifests: createManifestCache(),
      activeDeployments: createActiveDeploymentReader({
        db: platform.database.db,
        clock: platform.clock,
        changes: platform.activeDeploymentChanges,
      }),
    },
    enqueues: createEnqueueBatcher({
      db: platform.database.db,
      clock: platform.clock,
      ids: platform.ids,
      localStarts: platform.localStarts,
    }),
  };
}

/**
 * Runs a request's hot path (lookup, auth, CSRF, validation, enqueue) under the 5-second budget.
 * Over budget, the client gets `overBudget`'s response with `Retry-After` while the abandoned work
 * rolls back; the log says so. So does it when the database cannot be reached.
 */
export async function runHotPath(
  ingress: IngressContext,
  c: Context<AppEnv>,
  work: (budget: Budget) => Promise<Response>,
  overBudget: () => Response,
): Promise<Response> {
  let outcome: BudgetOutcome<Response>;
  try {
    outcome = await withinBudget(
      {
        budgetMs: hotPathBudgetMs,
        timers: ingress.platform.timers,
        onAbandoned: ({ committed, error }) => {
          if (committed) requestLogger(c).warn("an ingress request answered 503 committed its execution after all");
          else requestLogger(c).warn({ err: error }, "an ingress request over its budget was rolled back");
        },
      },
      work,
    );
  } catch (error) {
    // A database that restarts is refused like a spent budget: the client sends it again shortly.
    if (!isDatabaseUnavailable(error)) throw error;
    requestLogger(c).warn({ err: error }, "ingress request refused: the database is unavailable");
    c.header("Retry-After", String(budgetRetryAfterSeconds));
    return overBudget();
  }
  if (outcome.ok) return outcome.value;
  requestLogger(c).warn({ budgetMs: hotPathBudgetMs }, "ingress hot-path budget exceeded");
  c.header("Retry-After", String(budgetRetryAfterSeconds));
  return overBudget();
}
