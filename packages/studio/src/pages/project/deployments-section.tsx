import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Deployment } from "@weft/contract";
import type { ReactNode } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";

/** The project's deployments, newest first; any other than the active one can be made active again. */
export function DeploymentsSection({ projectId, writable }: { projectId: string; writable: boolean }): ReactNode {
  const queryClient = useQueryClient();
  const deployments = useQuery(
    weftQuery.deployments.list.queryOptions({ input: { projectId, pagination: { last: 20 } } }),
  );
  // Every query of the project reads the active deployment or what it holds.
  const activate = useMutation(
    weftQuery.deployments.activate.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: weftQuery.key({ input: { projectId } }) }),
    }),
  );
  const rows = [...(deployments.data?.results ?? [])].reverse();
  const active = rows.find((deployment) => deployment.active);
  return (
    <section className="card" aria-labelledby="deployments-heading">
      <h2 id="deployments-heading">Deployments</h2>
      <ErrorNotice error={activate.error} />
      <QueryTable
        query={deployments}
        loading="deployments"
        empty={
          <>
            No deployments yet: run <code>weft deploy</code>.
          </>
        }
        label="Table of deployments"
        rows={rows}
        rowKey={(deployment) => deployment.id}
        columns={[
          { name: "Number", cell: (deployment) => `#${deployment.number}` },
          { name: "Created", cell: (deployment) => <TimeText at={deployment.createdAt} /> },
          { name: "Contents", cell: contents },
          {
            name: "State",
            cell: (deployment) =>
              deployment.active ? (
                <span className="badge status-succeeded">active</span>
              ) : writable ? (
                <button
                  type="button"
                  className="button secondary small"
                  disabled={activate.isPending}
                  onClick={() => activate.mutate({ projectId, deploymentId: deployment.id })}
                >
                  {active !== undefined && deployment.number < active.number ? "Roll back to" : "Activate"} #
                  {deployment.number}
                </button>
              ) : (
                <span className="muted">inactive</span>
              ),
          },
        ]}
      />
    </section>
  );
}

function contents(deployment: Deployment): string {
  const { workflows, forms, webhooks, schedules = [] } = deployment.manifest;
  const parts = [
    [workflows.length, "workflow"],
    [forms.length, "form"],
    [webhooks.length, "webhook"],
    [schedules.length, "schedule"],
  ] as const;
  return parts
    .filter(([count]) => count > 0)
    .map(([count, noun]) => `${count} ${noun}${count === 1 ? "" : "s"}`)
    .join(", ");
}
