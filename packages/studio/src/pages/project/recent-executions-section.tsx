import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { ExecutionTable } from "../../components/execution-table.tsx";
import { QueryState } from "../../components/query-state.tsx";

export function RecentExecutionsSection({ projectId }: { projectId: string }): ReactNode {
  const executions = useQuery(
    weftQuery.workflows.listExecutions.queryOptions({ input: { projectId, pagination: { last: 10 } } }),
  );
  useLiveUpdates({ projectId }, [weftQuery.workflows.listExecutions.key()]);
  const rows = [...(executions.data?.results ?? [])].reverse();
  return (
    <section className="card" aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recent executions</h2>
      <QueryState
        query={executions}
        loading="executions"
        isEmpty={() => rows.length === 0}
        empty="No executions yet: run a workflow, or submit one of its forms."
      >
        {() => (
          <>
            <ExecutionTable executions={rows} />
            <Link to={`/projects/${projectId}/executions`}>All executions</Link>
          </>
        )}
      </QueryState>
    </section>
  );
}
