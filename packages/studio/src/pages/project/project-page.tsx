import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { canWrite, useRoleIn } from "../../app/workspace.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { DeploymentsSection } from "./deployments-section.tsx";
import { EndpointsSection } from "./endpoints-section.tsx";
import { IntegrationsSection } from "./integrations-section.tsx";
import { RecentExecutionsSection } from "./recent-executions-section.tsx";
import { WorkflowsSection } from "./workflows-section.tsx";

export function ProjectPage(): ReactNode {
  const { projectId = "" } = useParams();
  const project = useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }));
  const role = useRoleIn(project.data?.workspaceId);
  if (project.error !== null) return <ErrorNotice error={project.error} />;
  if (project.data === undefined) return <Loading what="the project" />;
  const writable = canWrite(role);
  return (
    <>
      <PageTitle title={project.data.name}>
        <p className="muted">
          <code>{project.data.id}</code> · <Link to={`/projects/${projectId}/executions`}>All executions</Link>
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
  );
}
