import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { PageTitle } from "../../components/page-title.tsx";
import { OneProjectPage, WorkspaceProjects } from "../../components/project-pages.tsx";
import { canWrite, useWorkspace } from "../../components/workspace.tsx";
import { ProjectSchedules } from "./project-schedules.tsx";

/** A project's schedules (`/projects/:projectId/schedules`), or every project's of the workspace (`/schedules`). */
export function SchedulesPage(): ReactNode {
  const { projectId } = useParams();
  if (projectId === undefined) return <WorkspaceSchedules />;
  return (
    <OneProjectPage
      projectId={projectId}
      title={(name) => `Schedules of ${name}`}
      everyProject={{ to: "/schedules", label: "All schedules" }}
    >
      {(writable) => <ProjectSchedules projectId={projectId} writable={writable} headingLevel={2} />}
    </OneProjectPage>
  );
}

function WorkspaceSchedules(): ReactNode {
  const { workspace } = useWorkspace();
  const writable = canWrite(workspace.role);
  return (
    <>
      <PageTitle title="Schedules" />
      <WorkspaceProjects>
        {(projects) => (
          <div className="stack-large">
            {projects.map((project) => (
              <section key={project.id} aria-labelledby={`project-${project.id}`}>
                <h2 id={`project-${project.id}`}>
                  <Link to={`/projects/${project.id}/schedules`}>{project.name}</Link>
                </h2>
                <ProjectSchedules projectId={project.id} writable={writable} headingLevel={3} />
              </section>
            ))}
          </div>
        )}
      </WorkspaceProjects>
    </>
  );
}
