import { recordAlertFailure } from "./alerts/record-failure.ts";
import { meterEndedExecution } from "./billing/metering.ts";
import { type PlanCatalogue, unlimitedPlan } from "./billing/plans.ts";
import { createQuotaGate } from "./billing/quota-gate.ts";
import { createStepQuota } from "./billing/step-quota.ts";
import type { Database } from "./db/database.ts";
import type { EndStatementParts } from "./engine/execution-state/end-statement-parts.ts";
import type { WorkerFeatures } from "./engine/worker.ts";
import { sendEvent } from "./events/send-event.ts";
import { readIntegrationValues } from "./integrations/read-integration-values.ts";
import type { SecretKeyring } from "./integrations/secret-sealing.ts";
import { validateJsonSchema } from "./schemas/validate-json-schema.ts";
import type { Clock } from "./shared/clock.ts";
import { createIdGenerator } from "./shared/ids.ts";
import { countEndedExecution } from "./studio/count-ended-execution.ts";

/**
 * What the features record in the engine's one end statement: billing's meters and Studio's counts
 * of every execution that ends, and the failures alerts notify of. Whatever ends attempts (the
 * worker, the API's cancel) is given this list, so the engine imports none of those features.
 */
export const endStatementParts: EndStatementParts = [meterEndedExecution, countEndedExecution, recordAlertFailure];

export interface WorkerFeatureSettings {
  /** The plans (WEFT_PLANS), whose step quotas the worker enforces. */
  billing?: PlanCatalogue | undefined;
  /** The keys that open the projects' integration secrets. */
  keyring?: SecretKeyring | undefined;
}

/**
 * What a worker asks of the features it runs executions for: the parts of its end statement, the
 * step quota of the plans (WEFT_PLANS; only `unlimited` by default) and, given the keys that open
 * the projects' secrets, the integrations its workflows see (without them, none).
 */
export function workerFeatures(deps: { db: Database; clock: Clock }, settings: WorkerFeatureSettings): WorkerFeatures {
  const { db, clock } = deps;
  const { keyring } = settings;
  const catalogue = settings.billing ?? { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name };
  const quotas = createQuotaGate({ db, clock, catalogue });
  const ids = createIdGenerator(clock);
  return {
    endStatementParts,
    stepQuota: createStepQuota({ db, clock, catalogue }),
    integrations: keyring === undefined ? undefined : (projectId) => readIntegrationValues(db, keyring, projectId),
    validateInput: validateJsonSchema,
    admitStarts: async (projectId, count) => (await quotas.admit(projectId, count))?.message,
    sendEvent: async (event, spanExport) => {
      const sent = await sendEvent(
        db,
        { clock, ids, endStatementParts, quotas, spanExport },
        {
          projectId: event.projectId,
          name: event.name,
          data: event.data,
          id: event.id,
          // A workflow's own id is bound to the name and data as events.send's is; the default one to nothing.
          ...(event.defaultId ? { requestDigest: null } : {}),
          source: { kind: "workflow", name: event.senderExecutionId },
          depth: event.senderDepth + 1,
        },
      );
      return sent.ok
        ? { ok: true, eventId: sent.value.id, executions: sent.value.executions }
        : { ok: false, message: sent.failure.message };
    },
  };
}
