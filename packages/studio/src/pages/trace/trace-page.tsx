import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { formatDuration } from "../../components/time-text.tsx";
import { spanRows } from "./span-rows.ts";

/** A trace as a waterfall: one row per span, indented under its parent, its bar placed in time. */
export function TracePage(): ReactNode {
  const { projectId = "", traceId = "" } = useParams();
  const trace = useQuery(weftQuery.traces.get.queryOptions({ input: { projectId, traceId } }));
  const rows = trace.data === undefined ? [] : spanRows(trace.data.spans, Date.now());
  const executionId = rows.find((row) => row.span.kind === "execution")?.span.attributes["weft.execution.id"];
  return (
    <>
      <PageTitle title="Trace">
        <p className="muted">
          <code>{traceId}</code> · <Link to={`/projects/${projectId}`}>Project</Link>
          {typeof executionId === "string" ? (
            <>
              {" "}
              · <Link to={`/executions/${executionId}`}>Execution</Link>
            </>
          ) : null}
        </p>
      </PageTitle>
      <QueryState
        query={trace}
        loading="the trace"
        isEmpty={() => rows.length === 0}
        empty="This trace has no spans yet: its execution has not started."
      >
        {() => (
          <ol className="waterfall" aria-label="Spans">
            {rows.map((row) => (
              <li key={row.span.spanId} className={`span span-${row.span.status.code}`}>
                <details>
                  <summary>
                    <span className="span-name" style={{ paddingInlineStart: `${row.depth * 1.25}rem` }}>
                      <span className="span-kind">{row.span.kind}</span> {row.span.name}
                    </span>
                    <span className="span-track" aria-hidden="true">
                      <span
                        className="span-bar"
                        style={{ marginInlineStart: `${row.offset * 100}%`, width: `${row.width * 100}%` }}
                      />
                    </span>
                    <span className="span-duration">
                      {row.durationMs === null ? "running" : formatDuration(row.durationMs)}
                      {row.span.status.code === "error" ? " · error" : ""}
                    </span>
                  </summary>
                  <dl className="facts attributes">
                    {row.span.status.message === null ? null : (
                      <div className="fact">
                        <dt>status</dt>
                        <dd>{row.span.status.message}</dd>
                      </div>
                    )}
                    {Object.entries(row.span.attributes).map(([name, value]) => (
                      <div key={name} className="fact">
                        <dt>{name}</dt>
                        <dd>{String(value)}</dd>
                      </div>
                    ))}
                  </dl>
                </details>
              </li>
            ))}
          </ol>
        )}
      </QueryState>
    </>
  );
}
