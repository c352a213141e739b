import type { Database } from "../../db/database.ts";
import { createGroupCommit } from "../../db/group-commit.ts";
import { recordSteps, type StepRecorded, type StepToRecord } from "../execution-state/index.ts";

/** Records a step of an attempt this worker runs, grouped with the steps that come together. */
export type BatchedSteps = (step: StepToRecord) => Promise<StepRecorded>;

/** Most steps in one statement: as many as a worker's slots, each with one step under way. */
const maxBatch = 100;

/**
 * Group commit of a worker's steps (`createGroupCommit`): steps reported while a step statement is
 * under way are recorded together in the next one. A step's commit waits for its flush to disk, so
 * the executions a worker runs at once share the statement's cost and one flush, instead of
 * queueing one commit each behind the connection.
 */
export function createBatchedSteps(db: Database, workerId: string): BatchedSteps {
  return createGroupCommit((steps: StepToRecord[]) => recordSteps(db, workerId, steps), { maxBatch });
}
