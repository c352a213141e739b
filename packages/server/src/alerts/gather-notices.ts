import { type AlertManifest, describeWorkflowError, errorSourceLocation, type FailureNotice } from "@weft/contract";
import { and, asc, eq, gt, inArray, lte, notExists, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import {
  alertDeliveries,
  alertFailures,
  alertWindows,
  deployments,
  type ExecutionError,
  executions,
  projects,
} from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { AlertPacing } from "./alert-policy.ts";

/** Most recorded failures one pass reads; a pass that fills it is followed by another. */
const failuresPerPass = 500;

type FailureRow = typeof alertFailures.$inferSelect;

/**
 * Turns recorded failures into notices: for each workflow whose window has passed (or that never
 * had a notice), one notice standing for all its recorded failures, as one delivery per target of
 * the alerts of the last failure's deployment. Any number of workers may call it at once: the
 * failure rows are locked with SKIP LOCKED, and a workflow's window is taken by one upsert that
 * only one transaction can win. Returns how many notices it made.
 */
export async function gatherNotices(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; pacing: AlertPacing },
): Promise<number> {
  let notices = 0;
  for (;;) {
    const pass = await db.transaction((tx) => gatherPass(tx, deps));
    notices += pass.notices;
    if (pass.read < failuresPerPass) return notices;
  }
}

async function gatherPass(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator; pacing: AlertPacing },
): Promise<{ read: number; notices: number }> {
  const now = deps.clock.now();
  const windowStart = new Date(now.getTime() - deps.pacing.windowMs);
  const windowOpen = tx
    .select({ one: sql`1` })
    .from(alertWindows)
    .where(
      and(
        eq(alertWindows.projectId, alertFailures.projectId),
        eq(alertWindows.workflow, alertFailures.workflow),
        gt(alertWindows.lastNoticeAt, windowStart),
      ),
    );
  const due = await tx
    .select()
    .from(alertFailures)
    .where(notExists(windowOpen))
    .orderBy(asc(alertFailures.failedAt), asc(alertFailures.executionId))
    .limit(failuresPerPass)
    .for("update", { skipLocked: true });
  const groups = new Map<string, FailureRow[]>();
  for (const failure of due) {
    const key = JSON.stringify([failure.projectId, failure.workflow]);
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  let notices = 0;
  for (const group of groups.values()) {
    if (await noticeFor(tx, deps, group, { now, windowStart })) notices += 1;
  }
  return { read: due.length, notices };
}

/** One workflow's notice, if this transaction wins its window; its failures are then consumed. */
async function noticeFor(
  tx: Transaction,
  deps: { ids: IdGenerator },
  group: FailureRow[],
  at: { now: Date; windowStart: Date },
): Promise<boolean> {
  const first = group[0] as FailureRow;
  const last = group[group.length - 1] as FailureRow;
  const taken = await tx
    .insert(alertWindows)
    .values({ projectId: first.projectId, workflow: first.workflow, lastNoticeAt: at.now })
    .onConflictDoUpdate({
      target: [alertWindows.projectId, alertWindows.workflow],
      set: { lastNoticeAt: at.now },
      setWhere: lte(alertWindows.lastNoticeAt, at.windowStart),
    })
    .returning({ projectId: alertWindows.projectId });
  if (taken.length === 0) return false;
  const [context] = await tx
    .select({
      projectName: projects.name,
      alerts: sql<AlertManifest[] | null>`${deployments.manifest} -> 'alerts'`,
    })
    .from(deployments)
    .innerJoin(projects, eq(projects.id, deployments.projectId))
    .where(eq(deployments.id, last.deploymentId));
  const [execution] = await tx
    .select({ error: executions.error })
    .from(executions)
    .where(eq(executions.id, last.executionId));
  await tx.delete(alertFailures).where(
    inArray(
      alertFailures.executionId,
      group.map((failure) => failure.executionId),
    ),
  );
  const targets = (context?.alerts ?? []).flatMap((alert): { kind: "mail" | "webhook"; target: string }[] =>
    "webhook" in alert
      ? [{ kind: "webhook", target: alert.webhook }]
      : alert.mail.map((address) => ({ kind: "mail", target: address })),
  );
  if (context === undefined || targets.length === 0) return false;
  const notice = failureNotice(
    { id: first.projectId, name: context.projectName },
    group,
    last.executionId,
    execution?.error ?? null,
  );
  await tx.insert(alertDeliveries).values(
    targets.map(({ kind, target }) => ({
      id: deps.ids("alertDelivery"),
      projectId: first.projectId,
      workflow: first.workflow,
      targetKind: kind,
      target,
      failures: group.length,
      lastExecutionId: last.executionId,
      notice,
      status: "pending" as const,
      attempts: 0,
      nextAttemptAt: at.now,
      createdAt: at.now,
    })),
  );
  return true;
}

function failureNotice(
  project: { id: string; name: string },
  group: FailureRow[],
  lastExecutionId: string,
  error: ExecutionError | null,
): FailureNotice {
  const known = error ?? { name: "Error", message: "the execution's error is no longer kept" };
  return {
    project,
    workflow: (group[0] as FailureRow).workflow,
    failures: group.length,
    firstFailureAt: (group[0] as FailureRow).failedAt.toISOString(),
    lastFailureAt: (group[group.length - 1] as FailureRow).failedAt.toISOString(),
    lastExecution: {
      id: lastExecutionId,
      error: {
        name: known.name,
        message: known.message,
        location: errorSourceLocation(known.stack) ?? null,
        description: describeWorkflowError(known),
      },
    },
  };
}
