import { type ReactNode, useId } from "react";
import { useParams, useSearchParams } from "react-router";
import { PageTitle } from "../../components/page-title.tsx";
import { OneProjectPage, WorkspaceProjects } from "../../components/project-pages.tsx";
import { canWrite, useWorkspace } from "../../components/workspace.tsx";
import { ProjectEvents } from "./project-events.tsx";

/** A project's events (`/projects/:projectId/events`), or those of a project of the workspace picked on `/sent-events`. */
export function EventsPage(): ReactNode {
  const { projectId } = useParams();
  if (projectId === undefined) return <WorkspaceEvents />;
  return (
    <OneProjectPage
      projectId={projectId}
      title={(name) => `Events of ${name}`}
      everyProject={{ to: "/sent-events", label: "All projects" }}
    >
      {(writable) => <ProjectEvents projectId={projectId} writable={writable} />}
    </OneProjectPage>
  );
}

function WorkspaceEvents(): ReactNode {
  const { workspace } = useWorkspace();
  const [searchParams, setSearchParams] = useSearchParams();
  const pickerId = useId();
  const asked = searchParams.get("project");
  const choose = (projectId: string): void => {
    const next = new URLSearchParams(searchParams);
    next.set("project", projectId);
    next.delete("name");
    setSearchParams(next, { replace: true });
  };
  return (
    <>
      <PageTitle title="Events" />
      <WorkspaceProjects>
        {(projects) => {
          // The project in the address if it is one of the workspace's, else the first one.
          const chosen = projects.find((project) => project.id === asked) ?? projects[0];
          return chosen === undefined ? null : (
            <ProjectEvents
              key={chosen.id}
              projectId={chosen.id}
              writable={canWrite(workspace.role)}
              picker={
                <div>
                  <label htmlFor={pickerId}>Project</label>
                  <select id={pickerId} value={chosen.id} onChange={(event) => choose(event.target.value)}>
                    {projects.map((project) => (
                      <option key={project.id} value={project.id}>
                        {project.name}
                      </option>
                    ))}
                  </select>
                </div>
              }
            />
          );
        }}
      </WorkspaceProjects>
    </>
  );
}
