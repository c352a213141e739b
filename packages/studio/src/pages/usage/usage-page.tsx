import { useQuery } from "@tanstack/react-query";
import type { PlanInForce, Usage } from "@weft/contract";
import { type ReactNode, useMemo } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { DataTable } from "../../components/data-table.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { canManage, useWorkspace } from "../../components/workspace.tsx";
import { DailyChart } from "./daily-chart.tsx";

const days = 30;

/** Usage against the plan this month, and the last 30 days by day and by project (owners and admins). */
export function UsagePage(): ReactNode {
  const { workspace } = useWorkspace();
  const manager = canManage(workspace.role);
  // Today and the 29 UTC days before it: getUsage answers each day of the range, with zeros.
  const range = useMemo(() => {
    const to = new Date();
    const today = Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate());
    return { from: new Date(today - (days - 1) * 86_400_000).toISOString(), to: to.toISOString() };
  }, []);
  const plan = useQuery(
    weftQuery.billing.getPlan.queryOptions({ input: { workspaceId: workspace.id }, enabled: manager }),
  );
  const byDay = useQuery(
    weftQuery.billing.getUsage.queryOptions({
      input: { workspaceId: workspace.id, ...range, groupBy: "day" },
      enabled: manager,
    }),
  );
  const byProject = useQuery(
    weftQuery.billing.getUsage.queryOptions({
      input: { workspaceId: workspace.id, ...range, groupBy: "project" },
      enabled: manager,
    }),
  );
  const projects = useQuery(
    weftQuery.projects.list.queryOptions({
      input: { workspaceId: workspace.id, pagination: { first: 100 } },
      enabled: manager,
    }),
  );
  const projectNames = new Map((projects.data?.results ?? []).map((project) => [project.id, project.name]));
  if (!manager) {
    return (
      <>
        <PageTitle title="Usage" />
        <p>Only the owners and admins of {workspace.name} can see its usage.</p>
      </>
    );
  }
  return (
    <>
      <PageTitle title="Usage" />
      <QueryState query={plan} loading="the plan">
        {(data) => <PlanMeters plan={data} />}
      </QueryState>
      <section className="card" aria-labelledby="per-day-heading">
        <h2 id="per-day-heading">Executions per day, last {days} days</h2>
        <QueryState
          query={byDay}
          loading="usage per day"
          isEmpty={(data) => data.totals.executions === 0}
          empty={`No executions in the last ${days} days.`}
        >
          {(data) => <PerDay rows={daysOf(data)} />}
        </QueryState>
      </section>
      <section className="card" aria-labelledby="per-project-heading">
        <h2 id="per-project-heading">Per project, last {days} days</h2>
        <QueryState
          query={byProject}
          loading="usage per project"
          isEmpty={(data) => data.rows.length === 0}
          empty={`No project used anything in the last ${days} days.`}
        >
          {(data) => <PerProject usage={data} names={projectNames} />}
        </QueryState>
      </section>
    </>
  );
}

function PlanMeters({ plan }: { plan: PlanInForce }): ReactNode {
  const rows = [
    ["Executions", plan.used.executions, plan.plan.executionsPerMonth],
    ["Step seconds", plan.used.stepSeconds, plan.plan.stepSecondsPerMonth],
    ["Projects", plan.used.projects, plan.plan.projects],
    ["Stored bytes", plan.used.bytes, plan.plan.storageBytes],
  ] as const;
  return (
    <section className="card" aria-labelledby="plan-heading">
      <h2 id="plan-heading">This month on the {plan.plan.name} plan</h2>
      <dl className="facts">
        {rows.map(([name, used, limit]) => (
          <div key={name} className="fact">
            <dt>{name}</dt>
            <dd>
              {used}
              {limit === undefined ? " (no limit)" : ` of ${limit}`}
              {limit === undefined ? null : (
                <>
                  {" "}
                  <meter min={0} max={limit} value={Math.min(used, limit)} aria-label={`${name} used`} />
                </>
              )}
            </dd>
          </div>
        ))}
        <div className="fact">
          <dt>Resets</dt>
          <dd>
            <TimeText at={plan.resetsAt} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

function daysOf(usage: Usage): Usage["rows"] {
  return usage.rows.filter((row) => row.day !== undefined);
}

function PerDay({ rows }: { rows: Usage["rows"] }): ReactNode {
  return (
    <DailyChart
      days={rows.map((row) => row.day ?? "")}
      values={rows.map((row) => row.executions)}
      label="Executions per day"
    />
  );
}

/** `names` by project id; a project deleted since (or beyond the first 100) shows its id. */
function PerProject({ usage, names }: { usage: Usage; names: ReadonlyMap<string, string> }): ReactNode {
  const nameOf = (projectId: string | undefined): string => names.get(projectId ?? "") ?? projectId ?? "";
  const most = Math.max(1, ...usage.rows.map((row) => row.executions));
  return (
    <DataTable
      label="Usage per project"
      rows={usage.rows}
      rowKey={(row) => row.projectId ?? ""}
      columns={[
        {
          name: "Project",
          cell: (row) => <Link to={`/projects/${row.projectId}`}>{nameOf(row.projectId)}</Link>,
        },
        {
          name: "Share of executions",
          cell: (row) => (
            <meter
              className="bar"
              min={0}
              max={most}
              value={row.executions}
              aria-label={`Executions of ${nameOf(row.projectId)}`}
            />
          ),
        },
        { name: "Executions", cell: (row) => row.executions },
        { name: "Step seconds", cell: (row) => row.stepSeconds },
        { name: "Bytes", cell: (row) => row.bytes },
      ]}
    />
  );
}
