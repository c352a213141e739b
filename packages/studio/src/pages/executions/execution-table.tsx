import type { WeftClient } from "@weft/client";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { StatusBadge } from "../../components/status-badge.tsx";
import { TableScroll } from "../../components/table-scroll.tsx";
import { formatDuration, TimeText } from "../../components/time-text.tsx";

export type ExecutionSummary = Awaited<ReturnType<WeftClient["workflows"]["listExecutions"]>>["results"][number];

export function ExecutionTable({ executions }: { executions: ExecutionSummary[] }): ReactNode {
  return (
    <TableScroll label="Executions">
      <table>
        <thead>
          <tr>
            <th scope="col">Execution</th>
            <th scope="col">Status</th>
            <th scope="col">Trigger</th>
            <th scope="col">Created</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {executions.map((execution) => (
            <tr key={execution.id}>
              <td>
                <Link to={`/executions/${execution.id}`}>{execution.workflow}</Link>{" "}
                <code className="muted small-id">{execution.id.slice(-8)}</code>
              </td>
              <td>
                <StatusBadge status={execution.status} />
              </td>
              <td>
                {execution.trigger.kind}
                {execution.trigger.name === null ? "" : ` ${execution.trigger.name}`}
              </td>
              <td>
                <TimeText at={execution.createdAt} />
              </td>
              <td>
                {execution.startedAt === null || execution.finishedAt === null
                  ? "—"
                  : formatDuration(Date.parse(execution.finishedAt) - Date.parse(execution.startedAt))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
