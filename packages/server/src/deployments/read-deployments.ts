import { eq, getTableColumns } from "drizzle-orm";
import type { PlanCatalogue } from "../billing/plans.ts";
import { scheduleLimitFailure } from "../billing/schedule-quota.ts";
import type { Database, Transaction } from "../db/database.ts";
import { fetchSelectKeysetPage, type KeysetPage, matchingCount, type PageRequest } from "../db/keyset-page.ts";
import { transactionWithResult } from "../db/result-transaction.ts";
import { activeDeployments, deployments } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { AnnouncesActiveDeploymentChanges } from "./active-deployment-changes.ts";
import { type DeploymentSummary, toDeploymentSummary } from "./deployment-summary.ts";
import { type DeploymentActor, makeActive } from "./make-active.ts";

const { bundle: _bundle, ...summaryColumns } = getTableColumns(deployments);

/** The active deployment of a project (what forms, webhooks and new runs use), or undefined. */
export async function getActiveDeployment(
  db: Database | Transaction,
  projectId: string,
): Promise<DeploymentSummary | undefined> {
  const [row] = await db
    .select(summaryColumns)
    .from(activeDeployments)
    .innerJoin(deployments, eq(deployments.id, activeDeployments.deploymentId))
    .where(eq(activeDeployments.projectId, projectId));
  return row === undefined ? undefined : toDeploymentSummary(row, { active: true });
}

async function activeDeploymentId(db: Database | Transaction, projectId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: activeDeployments.deploymentId })
    .from(activeDeployments)
    .where(eq(activeDeployments.projectId, projectId));
  return row?.id;
}

/** One deployment by id; not_found when it does not exist (or belongs to another project, when given). */
export async function getDeployment(
  db: Database | Transaction,
  deploymentId: string,
  options: { projectId?: string } = {},
): Promise<ServiceResult<DeploymentSummary>> {
  const [row] = await db.select(summaryColumns).from(deployments).where(eq(deployments.id, deploymentId));
  if (row === undefined || (options.projectId !== undefined && row.projectId !== options.projectId)) {
    return fail.notFound("deployment");
  }
  return ok(toDeploymentSummary(row, { active: (await activeDeploymentId(db, row.projectId)) === row.id }));
}

/** One page of a project's deployments, oldest first (ids, like numbers, follow creation order). */
export async function listDeployments(
  db: Database,
  request: { projectId: string; page: PageRequest },
): Promise<KeysetPage<DeploymentSummary>> {
  const active = await activeDeploymentId(db, request.projectId);
  const page = await fetchSelectKeysetPage({
    request: request.page,
    key: deployments.id,
    where: eq(deployments.projectId, request.projectId),
    select: () => db.select({ row: summaryColumns, matchingCount: matchingCount() }).from(deployments).$dynamic(),
  });
  return { ...page, rows: page.rows.map((row) => toDeploymentSummary(row, { active: row.id === active })) };
}

/** Makes an earlier (or the current) deployment the active one: a rollback. */
export async function activateDeployment(
  db: Database,
  deps: {
    clock: Clock;
    ids: IdGenerator;
    /** The plans (WEFT_PLANS), whose `schedules` the deployment must fit; the unlimited plan when absent. */
    catalogue?: PlanCatalogue | undefined;
  } & AnnouncesActiveDeploymentChanges,
  request: {
    projectId: string;
    deploymentId: string;
    actor?: DeploymentActor;
  },
): Promise<ServiceResult<DeploymentSummary>> {
  const activated = await transactionWithResult(db, async (tx): Promise<ServiceResult<DeploymentSummary>> => {
    const found = await getDeployment(tx, request.deploymentId, { projectId: request.projectId });
    if (!found.ok) return found;
    const target = found.value;
    const overLimit = await scheduleLimitFailure(tx, deps.catalogue, {
      projectId: request.projectId,
      scheduleCount: target.manifest.schedules?.length ?? 0,
    });
    if (overLimit !== undefined) return overLimit;
    const now = deps.clock.now();
    const madeActive = await makeActive(
      tx,
      deps,
      { projectId: request.projectId, actor: request.actor, action: "deployment.activated", now },
      target,
    );
    if (!madeActive.ok) return madeActive;
    return ok({ ...target, active: true });
  });
  if (activated.ok) deps.activeDeploymentChanges?.publish(request.projectId);
  return activated;
}
