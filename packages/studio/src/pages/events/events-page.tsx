import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useId } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { canWrite, useRoleIn, useWorkspace } from "../../components/workspace.tsx";
import { ProjectEvents } from "./project-events.tsx";

/** A project's events (`/projects/:projectId/events`), or those of a project of the workspace picked on `/sent-events`. */
export function EventsPage(): ReactNode {
  const { projectId } = useParams();
  return projectId === undefined ? <WorkspaceEvents /> : <OneProjectEvents projectId={projectId} />;
}

function OneProjectEvents({ projectId }: { projectId: string }): ReactNode {
  const project = useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }));
  const writable = canWrite(useRoleIn(project.data?.workspaceId));
  return (
    <QueryState query={project} loading="the project">
      {({ name }) => (
        <>
          <PageTitle title={`Events of ${name}`}>
            <p className="muted">
              <Link to={`/projects/${projectId}`}>{name}</Link> · <Link to="/sent-events">All projects</Link>
            </p>
          </PageTitle>
          <ProjectEvents projectId={projectId} writable={writable} />
        </>
      )}
    </QueryState>
  );
}

function WorkspaceEvents(): ReactNode {
  const { workspace } = useWorkspace();
  const [searchParams, setSearchParams] = useSearchParams();
  const pickerId = useId();
  const projects = useQuery(
    weftQuery.projects.list.queryOptions({ input: { workspaceId: workspace.id, pagination: { first: 100 } } }),
  );
  const results = projects.data?.results ?? [];
  const asked = searchParams.get("project");
  // The project in the address if it is one of the workspace's, else the first one.
  const chosen = results.find((project) => project.id === asked) ?? results[0];
  const choose = (projectId: string): void => {
    const next = new URLSearchParams(searchParams);
    next.set("project", projectId);
    next.delete("name");
    setSearchParams(next, { replace: true });
  };
  return (
    <>
      <PageTitle title="Events" />
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
        {() =>
          chosen === undefined ? null : (
            <ProjectEvents
              key={chosen.id}
              projectId={chosen.id}
              writable={canWrite(workspace.role)}
              picker={
                <div>
                  <label htmlFor={pickerId}>Project</label>
                  <select id={pickerId} value={chosen.id} onChange={(event) => choose(event.target.value)}>
                    {results.map((project) => (
                      <option key={project.id} value={project.id}>
                        {project.name}
                      </option>
                    ))}
                  </select>
                </div>
              }
            />
          )
        }
      </QueryState>
    </>
  );
}
