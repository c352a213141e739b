import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { canWrite, useRoleIn, useWorkspace } from "../../components/workspace.tsx";
import { ProjectSchedules } from "./project-schedules.tsx";

/** A project's schedules (`/projects/:projectId/schedules`), or every project's of the workspace (`/schedules`). */
export function SchedulesPage(): ReactNode {
  const { projectId } = useParams();
  return projectId === undefined ? <WorkspaceSchedules /> : <OneProjectSchedules projectId={projectId} />;
}

function OneProjectSchedules({ projectId }: { projectId: string }): ReactNode {
  const project = useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }));
  const writable = canWrite(useRoleIn(project.data?.workspaceId));
  return (
    <QueryState query={project} loading="the project">
      {({ name }) => (
        <>
          <PageTitle title={`Schedules of ${name}`}>
            <p className="muted">
              <Link to={`/projects/${projectId}`}>{name}</Link> · <Link to="/schedules">All schedules</Link>
            </p>
          </PageTitle>
          <ProjectSchedules projectId={projectId} writable={writable} headingLevel={2} />
        </>
      )}
    </QueryState>
  );
}

function WorkspaceSchedules(): ReactNode {
  const { workspace } = useWorkspace();
  const writable = canWrite(workspace.role);
  const projects = useQuery(
    weftQuery.projects.list.queryOptions({ input: { workspaceId: workspace.id, pagination: { first: 100 } } }),
  );
  return (
    <>
      <PageTitle title="Schedules" />
      <QueryState
        query={projects}
        loading="projects"
        isEmpty={(data) => data.results.length === 0}
        empty={
          <>
            No projects in {workspace.name} yet: run <code>weft init</code> then <code>weft deploy</code>.
          </>
        }
      >
        {({ results }) => (
          <div className="stack-large">
            {results.map((project) => (
              <section key={project.id} aria-labelledby={`project-${project.id}`}>
                <h2 id={`project-${project.id}`}>
                  <Link to={`/projects/${project.id}/schedules`}>{project.name}</Link>
                </h2>
                <ProjectSchedules projectId={project.id} writable={writable} headingLevel={3} />
              </section>
            ))}
          </div>
        )}
      </QueryState>
    </>
  );
}
