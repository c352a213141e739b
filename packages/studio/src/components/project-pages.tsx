import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { weftQuery } from "../api/weft-query.ts";
import { PageTitle } from "./page-title.tsx";
import { QueryState } from "./query-state.tsx";
import { canWrite, useRoleIn, useWorkspace } from "./workspace.tsx";

/** What a workspace without a project shows where its projects would be, and what to do next. */
export function NoProjectsYet({ workspaceName }: { workspaceName: string }): ReactNode {
  return (
    <>
      No projects in {workspaceName} yet: run <code>weft init</code> then <code>weft deploy</code>.
    </>
  );
}

function useWorkspaceProjects(workspaceId: string) {
  return useQuery(weftQuery.projects.list.queryOptions({ input: { workspaceId, pagination: { first: 100 } } }));
}

type WorkspaceProject = NonNullable<ReturnType<typeof useWorkspaceProjects>["data"]>["results"][number];

/**
 * The current workspace's projects (its first 100), for a page that shows something of each or
 * lets one be picked: the loading line, and the empty state when it has none.
 */
export function WorkspaceProjects({ children }: { children: (projects: WorkspaceProject[]) => ReactNode }): ReactNode {
  const { workspace } = useWorkspace();
  const projects = useWorkspaceProjects(workspace.id);
  return (
    <QueryState
      query={projects}
      loading="projects"
      isEmpty={(data) => data.results.length === 0}
      empty={<NoProjectsYet workspaceName={workspace.name} />}
    >
      {({ results }) => children(results)}
    </QueryState>
  );
}

interface OneProjectPageProps {
  projectId: string;
  /** The page's title, given the project's name. */
  title: (projectName: string) => string;
  /** The same page for every project of the workspace. */
  everyProject: { to: string; label: string };
  /** The page's body, given whether the viewer may change the project. */
  children: (writable: boolean) => ReactNode;
}

/** A page of one project (`/projects/:projectId/…`) under its title, with links to the project and to the page for every project. */
export function OneProjectPage({ projectId, title, everyProject, children }: OneProjectPageProps): ReactNode {
  const project = useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }));
  const writable = canWrite(useRoleIn(project.data?.workspaceId));
  return (
    <QueryState query={project} loading="the project">
      {({ name }) => (
        <>
          <PageTitle title={title(name)}>
            <p className="muted">
              <Link to={`/projects/${projectId}`}>{name}</Link> · <Link to={everyProject.to}>{everyProject.label}</Link>
            </p>
          </PageTitle>
          {children(writable)}
        </>
      )}
    </QueryState>
  );
}
