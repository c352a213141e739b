import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { ExecutionTable } from "../executions/execution-table.tsx";

export function RecentExecutionsSection({ projectId }: { projectId: string }): ReactNode {
  const executions = useQuery(
    weftQuery.workflows.listExecutions.queryOptions({
      input: { projectId, pagination: { last: 10 } },
      refetchInterval: 5_000,
    }),
  );
  const rows = [...(executions.data?.results ?? [])].reverse();
  return (
    <section className="card" aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recent executions</h2>
      {executions.error === null ? null : <ErrorNotice error={executions.error} />}
      {executions.data === undefined ? (
        <Loading what="executions" />
      ) : rows.length === 0 ? (
        <EmptyState>No executions yet: run a workflow, or submit one of its forms.</EmptyState>
      ) : (
        <>
          <ExecutionTable executions={rows} />
          <Link to={`/projects/${projectId}/executions`}>All executions</Link>
        </>
      )}
    </section>
  );
}
