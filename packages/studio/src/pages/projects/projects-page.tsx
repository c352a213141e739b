import { useInfiniteQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { NoProjectsYet } from "../../components/project-pages.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { useWorkspace } from "../../components/workspace.tsx";

export function ProjectsPage(): ReactNode {
  const { workspace } = useWorkspace();
  const projects = useInfiniteQuery(
    weftQuery.projects.list.infiniteOptions({
      input: (after: string | null) => ({
        workspaceId: workspace.id,
        pagination: after === null ? { first: 50 } : { first: 50, after },
      }),
      initialPageParam: null,
      getNextPageParam: (page) => (page.pagination.hasNextPage ? page.pagination.endCursor : undefined),
    }),
  );
  const rows = projects.data?.pages.flatMap((page) => page.results) ?? [];
  return (
    <>
      <PageTitle title="Projects" />
      <QueryTable
        query={projects}
        loading="projects"
        empty={<NoProjectsYet workspaceName={workspace.name} />}
        label="Projects"
        caption={`Projects of ${workspace.name}`}
        rows={rows}
        rowKey={(project) => project.id}
        columns={[
          { name: "Name", cell: (project) => <Link to={`/projects/${project.id}`}>{project.name}</Link> },
          { name: "Created", cell: (project) => <TimeText at={project.createdAt} /> },
          {
            name: "Retention",
            cell: (project) => (project.retentionDays === null ? "platform default" : `${project.retentionDays} days`),
          },
        ]}
      />
      {projects.hasNextPage ? (
        <button type="button" className="button secondary" onClick={() => void projects.fetchNextPage()}>
          More projects
        </button>
      ) : null}
    </>
  );
}
