import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { canWrite, useRoleIn } from "../../components/workspace.tsx";
import { DeploymentsSection } from "./deployments-section.tsx";
import { EndpointsSection } from "./endpoints-section.tsx";
import { IntegrationsSection } from "./integrations-section.tsx";
import { RecentExecutionsSection } from "./recent-executions-section.tsx";
import { WorkflowsSection } from "./workflows-section.tsx";

export function ProjectPage(): ReactNode {
  const { projectId = "" } = useParams();
  const project = useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }));
  const writable = canWrite(useRoleIn(project.data?.workspaceId));
  return (
    <QueryState query={project} loading="the project">
      {({ id, name }) => (
        <>
          <PageTitle title={name}>
            <p className="muted">
              <code>{id}</code> · <Link to={`/projects/${projectId}/executions`}>All executions</Link> ·{" "}
              <Link to={`/projects/${projectId}/schedules`}>Schedules</Link> ·{" "}
              <Link to={`/projects/${projectId}/events`}>Events</Link>
              {writable ? null : " · You can look but not change anything (viewer)."}
            </p>
          </PageTitle>
          <div className="stack-large">
            <WorkflowsSection projectId={projectId} writable={writable} />
            <EndpointsSection projectId={projectId} />
            <RecentExecutionsSection projectId={projectId} />
            <DeploymentsSection projectId={projectId} writable={writable} />
            <IntegrationsSection projectId={projectId} writable={writable} />
          </div>
        </>
      )}
    </QueryState>
  );
}
