import { parseJsonPath, valueAtJsonPath, type WorkflowManifest } from "@weft/contract";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { executions } from "../db/schema/index.ts";
import { cancel, type EndStatementParts, leasedState, requestCancel } from "../engine/execution-state/index.ts";
import { unfinishedCondition } from "../engine/execution-state/status-conditions.ts";
import { jsonParam } from "../engine/sql-rows.ts";
import { textArray } from "../engine/sql-text-array.ts";
import type { EventAsInput } from "./event-input.ts";

/** One workflow's executions an event cancels: all its unfinished ones, or those whose input holds `value` at `inputPath`. */
interface CancelTarget {
  workflow: string;
  inputPath?: string[];
  value?: unknown;
}

/** The `cancelOn` entries of the deployment's workflows an event meets, with the value its `match` compares. */
export function cancelTargets(workflows: readonly WorkflowManifest[], event: EventAsInput): CancelTarget[] {
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
      targets.push({ workflow: workflow.name, inputPath, value });
    }
  }
  return targets;
}

/**
 * Cancels, in the send's transaction, the unfinished executions the targets select, at most `limit`
 * in all: a queued, sleeping or waiting one at once (`cancel`), a running one by flagging it for its
 * worker (`requestCancel`), as `workflows.cancelExecution` does. The candidates are read on the
 * (project, workflow, status) index, oldest first, and locked; a `match` is then a comparison of
 * each candidate's input at the path, so its cost is the workflow's unfinished executions, not the
 * project's history.
 */
export async function cancelOnEvent(
  tx: Transaction,
  deps: { endStatementParts: EndStatementParts },
  request: { projectId: string; targets: readonly CancelTarget[]; now: Date; limit: number },
): Promise<{ cancelled: number; endedNow: string[] }> {
  let cancelled = 0;
  const endedNow: string[] = [];
  for (const target of request.targets) {
    if (cancelled >= request.limit) break;
    const matches =
      target.inputPath === undefined
        ? undefined
        : sql`${executions.input} #> ${textArray(target.inputPath)} = ${jsonParam(target.value)}::jsonb`;
    const rows = await tx
      .select({ id: executions.id, status: executions.status, cancelRequestedAt: executions.cancelRequestedAt })
      .from(executions)
      .where(
        and(
          eq(executions.projectId, request.projectId),
          eq(executions.workflow, target.workflow),
          unfinishedCondition,
          matches,
        ),
      )
      .orderBy(asc(executions.id))
      .limit(request.limit - cancelled)
      .for("update");
    for (const row of rows) {
      if (row.status === leasedState) {
        if (row.cancelRequestedAt === null) await requestCancel(tx, { executionId: row.id, now: request.now });
      } else {
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
  }
  return { cancelled, endedNow };
}
