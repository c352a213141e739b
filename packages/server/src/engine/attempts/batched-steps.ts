import type { Database } from "../../db/database.ts";
import { createGroupCommit } from "../../db/group-commit.ts";
import { recordSteps, type StepRecorded, type StepToRecord } from "../execution-state/index.ts";

/** A step to record, unless its attempt has ended by the time its statement is built. */
export interface BatchedStep extends StepToRecord {
  ended(): boolean;
}

/** Records a step of an attempt this worker runs, grouped with the steps that come together. */
export type BatchedSteps = (step: BatchedStep) => Promise<StepRecorded>;

/** Most steps in one statement: as many as a worker's slots, each with one step under way. */
const maxBatch = 100;

/**
 * Group commit of a worker's steps (`createGroupCommit`): steps reported while a step statement is
 * under way are recorded together in the next one. A step's commit waits for its flush to disk, so
 * the executions a worker runs at once share the statement's cost and one flush, instead of
 * queueing one commit each behind the connection. A step of an attempt that has ended meanwhile is
 * not stored (answered `refused`): past a step its attempt could not store, none may be.
 */
export function createBatchedSteps(db: Database, workerId: string): BatchedSteps {
  return createGroupCommit(
    async (steps: BatchedStep[]) => {
      const wanted = steps.map((step) => !step.ended());
      const toRecord = steps.filter((_, index) => wanted[index]);
      const recorded = toRecord.length === 0 ? [] : await recordSteps(db, workerId, toRecord);
      let next = 0;
      return steps.map(
        (_, index): StepRecorded => (wanted[index] ? recorded[next++] : undefined) ?? { outcome: "refused" },
      );
    },
    { maxBatch },
  );
}
