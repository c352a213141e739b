import type { JsonSchema } from "@weft/contract";
import type { DatabaseHandle } from "../db/database.ts";
import { type EnqueueExecutionRequest, enqueueExecution } from "../engine/enqueue-execution.ts";
import { type SchemaValidation, validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { Budget } from "./hot-path-budget.ts";

/**
 * Checks a submission against the form's schema (when it has one), then against the input schema of
 * the workflow it starts, so that a workflow never receives input its own schema refuses.
 */
export function validateSubmission(
  schemas: { definition: JsonSchema | undefined; workflow: JsonSchema | undefined },
  value: unknown,
): SchemaValidation {
  let current: unknown = value;
  for (const schema of [schemas.definition, schemas.workflow]) {
    if (schema === undefined) continue;
    const checked = validateJsonSchema(schema, current);
    if (!checked.ok) return checked;
    current = checked.value;
  }
  return { ok: true, value: current };
}

/**
 * Enqueues the execution in its own transaction. The budget is checked just before the commit: a
 * submission whose caller has already been told 503 rolls back rather than running unannounced.
 */
export function enqueueSubmission(
  deps: { database: DatabaseHandle; clock: Clock; ids: IdGenerator },
  budget: Budget,
  request: EnqueueExecutionRequest,
): Promise<{ executionId: string; created: boolean }> {
  return deps.database.db.transaction(async (tx) => {
    budget.throwIfExpired();
    const enqueued = await enqueueExecution(tx, deps, request);
    budget.throwIfExpired();
    return enqueued;
  });
}
