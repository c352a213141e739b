import { useQuery } from "@tanstack/react-query";
import type { Approvals } from "@weft/contract";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { WaitTokenCard } from "../../components/wait-token-card.tsx";
import { canWrite, useWorkspace } from "../../components/workspace.tsx";

/** How often the list is read again besides the live stream. */
const olderTokensRefreshMs = 60_000;

/** Every wait token of the workspace that waits for an answer, oldest first, kept current by the live stream. */
export function ApprovalsPage(): ReactNode {
  const { workspace } = useWorkspace();
  const approvals = useQuery({
    ...weftQuery.studio.approvals.queryOptions({ input: { workspaceId: workspace.id } }),
    // The workspace's stream follows its newest executions; a token of an older one answered or timed
    // out elsewhere shows here within a minute.
    refetchInterval: olderTokensRefreshMs,
  });
  useLiveUpdates({ workspaceId: workspace.id }, [weftQuery.studio.approvals.key()]);
  return (
    <>
      <PageTitle title="Approvals" />
      <p className="muted">Wait tokens of {workspace.name} that wait for an answer, oldest first.</p>
      <QueryState
        query={approvals}
        loading="what waits for an answer"
        isEmpty={(data) => data.approvals.length === 0}
        empty="Nothing waits for an answer. A workflow's ctx.waitForToken shows here until someone answers it."
      >
        {(data) => <ApprovalList approvals={data} writable={canWrite(workspace.role)} />}
      </QueryState>
    </>
  );
}

function ApprovalList({ approvals, writable }: { approvals: Approvals; writable: boolean }): ReactNode {
  return (
    <>
      <ul className="plain-list approvals">
        {approvals.approvals.map((approval) => (
          <li key={`${approval.executionId}/${approval.name}`} className="card">
            <WaitTokenCard executionId={approval.executionId} token={approval} writable={writable} headingLevel={2} />
            <p className="muted">
              <Link to={`/executions/${approval.executionId}`}>Execution of {approval.workflow}</Link> in{" "}
              <Link to={`/projects/${approval.projectId}`}>{approval.projectName}</Link>
            </p>
          </li>
        ))}
      </ul>
      {approvals.more ? (
        <p className="muted">More tokens wait than these; answer these first, or list them with the API.</p>
      ) : null}
    </>
  );
}
