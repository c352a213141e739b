import type { StudioOverview } from "@weft/contract";
import { and, desc, eq, gte, inArray, sql } from "drizzle-orm";
import { type Agent, agentColumns, statusCondition, toAgent } from "../agents/agent-record.ts";
import { readPlanInForce } from "../billing/plan-in-force.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import type { Database } from "../db/database.ts";
import {
  accounts,
  activeDeployments,
  credentials,
  deployments,
  executions,
  memberships,
  projects,
  registrations,
} from "../db/schema/index.ts";
import { valueOrThrow } from "../shared/service-result.ts";
import { countExecutions } from "./count-executions.ts";

const minuteMs = 60 * 1000;
const dayMs = 24 * 60 * minuteMs;

/** The overview with its agents as records (the adapter shows them in the wire shape). */
export type OverviewRecord = Omit<StudioOverview, "activeAgents"> & { activeAgents: Agent[] };

export interface OverviewRequest {
  workspaceId: string;
  /** Whose agents: every member's (owner, admin), or the caller's own. */
  agentsOf: { workspaceId: string } | { accountId: string };
  /** Owners and admins see usage against the plan. */
  withUsage: boolean;
}

/**
 * `studio.overview`: what the dashboard's first view shows, in one call. Each part is one indexed
 * query over the workspace's projects (docs/decisions/0075-studio-queries.md); they run together.
 */
export async function readOverview(
  db: Database,
  deps: { catalogue: PlanCatalogue; now: Date },
  request: OverviewRequest,
): Promise<OverviewRecord> {
  const since = new Date(deps.now.getTime() - dayMs);
  const inWorkspace = inArray(
    executions.projectId,
    db.select({ id: projects.id }).from(projects).where(eq(projects.workspaceId, request.workspaceId)),
  );
  const [projectRows, statusRows, failures, agents, usage] = await Promise.all([
    db
      .select({
        id: projects.id,
        name: projects.name,
        deploymentId: deployments.id,
        number: deployments.number,
        deployedAt: deployments.createdAt,
      })
      .from(projects)
      .leftJoin(activeDeployments, eq(activeDeployments.projectId, projects.id))
      .leftJoin(deployments, eq(deployments.id, activeDeployments.deploymentId))
      .where(eq(projects.workspaceId, request.workspaceId))
      .orderBy(projects.name, projects.id),
    countExecutions(db, {
      of: { workspaceId: request.workspaceId },
      from: since,
      to: untilMinuteEnds(deps.now),
      bucket: null,
    }),
    db
      .select({
        executionId: executions.id,
        projectId: executions.projectId,
        workflow: executions.workflow,
        error: executions.error,
        finishedAt: executions.finishedAt,
      })
      .from(executions)
      .where(and(inWorkspace, eq(executions.status, "failed"), sql`${executions.finishedAt} is not null`))
      .orderBy(desc(executions.finishedAt), desc(executions.id))
      .limit(10),
    activeAgents(db, request.agentsOf, since, deps.now),
    request.withUsage ? readPlanInForce(db, deps, request.workspaceId).then(valueOrThrow) : Promise.resolve(null),
  ]);
  return {
    workspaceId: request.workspaceId,
    projects: projectRows.map((row) => ({
      id: row.id,
      name: row.name,
      activeDeployment:
        row.deploymentId === null || row.number === null || row.deployedAt === null
          ? null
          : { id: row.deploymentId, number: row.number, createdAt: row.deployedAt.toISOString() },
    })),
    executionsLast24h: Object.fromEntries(statusRows.map((row) => [row.status, row.n])),
    recentFailures: failures.map((row) => ({
      executionId: row.executionId,
      projectId: row.projectId,
      workflow: row.workflow,
      error: row.error === null ? null : { name: row.error.name, message: row.error.message },
      finishedAt: (row.finishedAt ?? deps.now).toISOString(),
    })),
    activeAgents: agents,
    usage,
  };
}

/**
 * The end of the minute `now` is in: nothing is created later than now, and a range ending on a
 * whole minute has one sub-minute end to count directly instead of two.
 */
function untilMinuteEnds(now: Date): Date {
  return new Date(Math.floor(now.getTime() / minuteMs) * minuteMs + minuteMs);
}

/** Active agents whose credential was used since `since`, newest use first (at most 100). */
async function activeAgents(
  db: Database,
  of: { workspaceId: string } | { accountId: string },
  since: Date,
  now: Date,
): Promise<Agent[]> {
  const owners =
    "accountId" in of
      ? eq(credentials.accountId, of.accountId)
      : inArray(
          credentials.accountId,
          db
            .select({ accountId: memberships.accountId })
            .from(memberships)
            .where(eq(memberships.workspaceId, of.workspaceId)),
        );
  const rows = await db
    .select(agentColumns)
    .from(registrations)
    .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
    .innerJoin(accounts, eq(accounts.id, credentials.accountId))
    .where(and(owners, statusCondition("active", now), gte(credentials.lastUsedAt, since)))
    .orderBy(desc(credentials.lastUsedAt), desc(registrations.id))
    .limit(100);
  return rows.map((row) => toAgent(row, now));
}
