import { parseJsonPath, valueAtJsonPath, type WorkflowManifest } from "@weft/contract";
import { and, asc, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { executions } from "../db/schema/index.ts";
import { cancelKey } from "../engine/cancel-keys.ts";
import { cancel, type EndStatementParts, leasedState, requestCancel } from "../engine/execution-state/index.ts";
import { readyStates } from "../engine/execution-state/status-conditions.ts";
import { statusIn } from "../engine/execution-state/transition-condition.ts";
import { jsonParam } from "../engine/sql-rows.ts";
import { textArray } from "../engine/sql-text-array.ts";
import type { EventAsInput } from "./event-input.ts";

/**
 * One workflow's executions an event cancels: all its unfinished ones, or those stored with `key`
 * (`engine/cancel-keys.ts`), which are those whose input holds `value` at `inputPath`.
 */
type CancelTarget =
  | { workflow: string; match?: undefined }
  | { workflow: string; match: { key: string; inputPath: string[]; value: unknown } };

/** The `cancelOn` entries of the deployment's workflows an event meets, with the key its `match` looks for. */
export function cancelTargets(
  workflows: readonly WorkflowManifest[],
  projectId: string,
  event: EventAsInput,
): CancelTarget[] {
  const targets: CancelTarget[] = [];
  for (const workflow of workflows) {
    for (const entry of workflow.cancelOn ?? []) {
      if (entry.event !== event.name) continue;
      if (entry.match === undefined) {
        targets.push({ workflow: workflow.name });
        continue;
      }
      const eventPath = parseJsonPath(entry.match.event);
      const inputPath = parseJsonPath(entry.match.input);
      const value = eventPath === undefined ? undefined : valueAtJsonPath(event, eventPath);
      // An event lacking the field matches no execution (rather than all of them).
      if (value === undefined || inputPath === undefined) continue;
      const key = cancelKey({ projectId, workflow: workflow.name, event: entry.event, inputPath }, value);
      targets.push({ workflow: workflow.name, match: { key, inputPath, value } });
    }
  }
  return targets;
}

/**
 * An execution that can still be cancelled: unfinished and not yet flagged for its worker, so one
 * a send already flagged is neither flagged again nor counted against the limit. Literal states, as
 * in the predicate of `executions_cancel_keys_idx` and `executions_keyless_unfinished_idx`.
 */
const cancellable = sql`${statusIn([...readyStates, leasedState])} and ${executions.cancelRequestedAt} is null`;

/**
 * Cancels, in the send's transaction, the unfinished executions the targets select, at most `limit`
 * in all: a queued, sleeping or waiting one at once (`cancel`), a running one by flagging it for its
 * worker (`requestCancel`), as `workflows.cancelExecution` does. The candidates are locked, oldest
 * first within each read. Every `match` is one probe of `executions_cancel_keys_idx` for the keys
 * the event gives, so it reads the executions it cancels and no others; then, for each, the
 * executions enqueued before keys were stored, compared at the input path on their own partial
 * index. An entry without `match` reads the workflow's unfinished executions on (project,
 * workflow, status), passing over the flagged ones.
 */
export async function cancelOnEvent(
  tx: Transaction,
  deps: { endStatementParts: EndStatementParts },
  request: { projectId: string; targets: readonly CancelTarget[]; now: Date; limit: number },
): Promise<{ cancelled: number; endedNow: string[] }> {
  let cancelled = 0;
  const endedNow: string[] = [];
  const cancelAmong = async (selection: SQL | undefined) => {
    if (cancelled >= request.limit || selection === undefined) return;
    const rows = await tx
      .select({ id: executions.id, status: executions.status })
      .from(executions)
      .where(and(cancellable, selection))
      .orderBy(asc(executions.id))
      .limit(request.limit - cancelled)
      .for("update");
    for (const row of rows) {
      if (row.status === leasedState) await requestCancel(tx, { executionId: row.id, now: request.now });
      else {
        await cancel(
          tx,
          deps.endStatementParts,
          { executionId: row.id },
          { now: request.now, attemptSpanId: undefined, attemptStatus: { code: "error" }, logs: [] },
        );
        endedNow.push(row.id);
      }
      cancelled += 1;
    }
  };
  const matches = request.targets.flatMap((target) => (target.match === undefined ? [] : [target]));
  const keys = [...new Set(matches.map((target) => target.match.key))];
  // No condition on the project here, though a key holds it: with one, a planner whose statistics
  // lag the backlog may read the project's unfinished executions on another index and filter them.
  await cancelAmong(
    keys.length === 0
      ? undefined
      : sql`${executions.cancelKeys} && ${textArray(keys)} and cardinality(${executions.cancelKeys}) > 0`,
  );
  for (const { workflow, match } of matches) {
    await cancelAmong(
      and(
        eq(executions.projectId, request.projectId),
        eq(executions.workflow, workflow),
        isNull(executions.cancelKeys),
        sql`${executions.input} #> ${textArray(match.inputPath)} = ${jsonParam(match.value)}::jsonb`,
      ),
    );
  }
  for (const target of request.targets) {
    if (target.match === undefined) {
      await cancelAmong(and(eq(executions.projectId, request.projectId), eq(executions.workflow, target.workflow)));
    }
  }
  return { cancelled, endedNow };
}
