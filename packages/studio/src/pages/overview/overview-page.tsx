import { useQuery } from "@tanstack/react-query";
import type { StudioOverview } from "@weft/contract";
import { type ReactNode, useMemo } from "react";
import { Link } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { EmptyState, QueryState } from "../../components/query-state.tsx";
import { StatusBadge } from "../../components/status-badge.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { useWorkspace } from "../../components/workspace.tsx";
import { ExecutionChart } from "./execution-chart.tsx";
import { NextRuns } from "./next-runs.tsx";

const chartMinutes = 60;

export function OverviewPage(): ReactNode {
  const { workspace } = useWorkspace();
  const overview = useQuery(weftQuery.studio.overview.queryOptions({ input: { workspaceId: workspace.id } }));
  useLiveUpdates({ workspaceId: workspace.id }, [
    weftQuery.studio.overview.key(),
    weftQuery.studio.executionTimeline.key(),
  ]);
  return (
    <>
      <PageTitle title="Overview" />
      <QueryState query={overview} loading="the overview">
        {(data) => <Overview overview={data} workspaceId={workspace.id} />}
      </QueryState>
    </>
  );
}

function Overview({ overview, workspaceId }: { overview: StudioOverview; workspaceId: string }): ReactNode {
  const counts = Object.entries(overview.executionsLast24h);
  return (
    <div className="grid">
      <section className="card" aria-labelledby="last-day">
        <h2 id="last-day">Executions in the last 24 hours</h2>
        {counts.length === 0 ? (
          <p className="muted">No executions in the last 24 hours.</p>
        ) : (
          <ul className="counts">
            {counts.map(([status, count]) => (
              <li key={status}>
                <StatusBadge status={status} /> <span className="count">{count}</span>
              </li>
            ))}
          </ul>
        )}
        <Timeline workspaceId={workspaceId} />
      </section>
      <section className="card" aria-labelledby="projects-heading">
        <h2 id="projects-heading">Projects</h2>
        {overview.projects.length === 0 ? (
          <EmptyState>
            No projects yet: run <code>weft init</code> then <code>weft deploy</code>.
          </EmptyState>
        ) : (
          <ul className="plain-list">
            {overview.projects.map((project) => (
              <li key={project.id}>
                <Link to={`/projects/${project.id}`}>{project.name}</Link>{" "}
                <span className="muted">
                  {project.activeDeployment === null
                    ? "no deployment yet"
                    : `deployment #${project.activeDeployment.number}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <NextRuns projects={overview.projects} />
      <section className="card" aria-labelledby="failures-heading">
        <h2 id="failures-heading">Recent failures</h2>
        {overview.recentFailures.length === 0 ? (
          <p className="muted">No failed executions.</p>
        ) : (
          <ul className="plain-list">
            {overview.recentFailures.map((failure) => (
              <li key={failure.executionId}>
                <Link to={`/executions/${failure.executionId}`}>{failure.workflow}</Link>{" "}
                <span className="muted">
                  {failure.error?.message ?? "failed"} · <TimeText at={failure.finishedAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="agents-heading">
        <h2 id="agents-heading">Agents active in the last 24 hours</h2>
        {overview.activeAgents.length === 0 ? (
          <p className="muted">No agent has acted in the last 24 hours.</p>
        ) : (
          <ul className="plain-list">
            {overview.activeAgents.map((agent) => (
              <li key={agent.id}>
                {agent.agent.clientId ??
                  agent.agent.userAgent ??
                  (agent.federation === null
                    ? agent.type
                    : `subject ${agent.federation.subject} (policy ${agent.federation.policyId})`)}{" "}
                <span className="muted">
                  for {agent.email} · last used <TimeText at={agent.lastUsedAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
        <Link to="/agents">All agents</Link>
      </section>
      {overview.usage === null ? null : (
        <section className="card" aria-labelledby="usage-heading">
          <h2 id="usage-heading">Usage this month ({overview.usage.plan.name} plan)</h2>
          <dl className="facts">
            <dt>Executions</dt>
            <dd>
              {overview.usage.used.executions}
              {overview.usage.plan.executionsPerMonth === undefined
                ? ""
                : ` of ${overview.usage.plan.executionsPerMonth}`}
            </dd>
            <dt>Step seconds</dt>
            <dd>
              {overview.usage.used.stepSeconds}
              {overview.usage.plan.stepSecondsPerMonth === undefined
                ? ""
                : ` of ${overview.usage.plan.stepSecondsPerMonth}`}
            </dd>
            <dt>Projects</dt>
            <dd>
              {overview.usage.used.projects}
              {overview.usage.plan.projects === undefined ? "" : ` of ${overview.usage.plan.projects}`}
            </dd>
            <dt>Resets</dt>
            <dd>
              <TimeText at={overview.usage.resetsAt} />
            </dd>
          </dl>
        </section>
      )}
    </div>
  );
}

function Timeline({ workspaceId }: { workspaceId: string }): ReactNode {
  const from = useMemo(() => new Date(Math.floor(Date.now() / 60_000) * 60_000 - (chartMinutes - 1) * 60_000), []);
  const timeline = useQuery(
    weftQuery.studio.executionTimeline.queryOptions({
      input: {
        workspaceId,
        from: from.toISOString(),
        to: new Date(from.getTime() + chartMinutes * 60_000).toISOString(),
        bucket: "minute",
      },
    }),
  );
  return (
    <figure className="chart-figure">
      <figcaption>Executions per minute, last hour</figcaption>
      <QueryState query={timeline} loading="the timeline">
        {(data) => <ExecutionChart timeline={data} from={from} minutes={chartMinutes} />}
      </QueryState>
    </figure>
  );
}
