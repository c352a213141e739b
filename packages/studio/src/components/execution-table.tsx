import type { WeftClient } from "@weft/client";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { DataTable } from "./data-table.tsx";
import { StatusBadge } from "./status-badge.tsx";
import { TagList } from "./tag-list.tsx";
import { formatDuration, TimeText } from "./time-text.tsx";

export type ExecutionSummary = Awaited<ReturnType<WeftClient["workflows"]["listExecutions"]>>["results"][number];

export function ExecutionTable({
  executions,
  label = "Executions",
}: {
  executions: ExecutionSummary[];
  /** Names the table to screen readers; two tables of a page need two names. */
  label?: string;
}): ReactNode {
  return (
    <DataTable
      label={label}
      rows={executions}
      rowKey={(execution) => execution.id}
      columns={[
        {
          name: "Execution",
          cell: (execution) => (
            <>
              <Link to={`/executions/${execution.id}`}>{execution.workflow}</Link>{" "}
              <code className="muted small-id">{execution.id.slice(-8)}</code>
              {execution.tags.length === 0 ? null : (
                <>
                  {" "}
                  <TagList tags={execution.tags} label={`Tags of ${execution.workflow} ${execution.id.slice(-8)}`} />
                </>
              )}
            </>
          ),
        },
        { name: "Status", cell: (execution) => <StatusBadge status={execution.status} /> },
        {
          name: "Trigger",
          cell: (execution) =>
            execution.trigger.name === null
              ? execution.trigger.kind
              : `${execution.trigger.kind} ${execution.trigger.name}`,
        },
        { name: "Created", cell: (execution) => <TimeText at={execution.createdAt} /> },
        {
          name: "Duration",
          cell: (execution) =>
            // An expired run never ran: the moment it was found too late is no duration.
            execution.startedAt === null || execution.finishedAt === null || execution.status === "expired"
              ? "—"
              : formatDuration(Date.parse(execution.finishedAt) - Date.parse(execution.startedAt)),
        },
      ]}
    />
  );
}
