import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { formatDuration } from "../../components/time-text.tsx";
import { axisTicks, spanRows, traceLengthMs } from "./span-rows.ts";

/**
 * A trace as a waterfall: one row per span, indented under its parent, its bar placed on the one
 * time axis all rows share (every track is the same width); a span opens to its attributes.
 */
export function TracePage(): ReactNode {
  const { projectId = "", traceId = "" } = useParams();
  const trace = useQuery(weftQuery.traces.get.queryOptions({ input: { projectId, traceId } }));
  const now = Date.now();
  const rows = trace.data === undefined ? [] : spanRows(trace.data.spans, now);
  const lengthMs = trace.data === undefined ? 0 : traceLengthMs(trace.data.spans, now);
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
          <>
            <div className="waterfall-axis" aria-hidden="true">
              <span className="span-name">Time since the start</span>
              <span className="axis-track">
                {axisTicks(lengthMs).map((tick) => (
                  <span
                    key={tick.fraction}
                    className={`axis-tick${tick.fraction === 0 ? " axis-first" : tick.fraction === 1 ? " axis-last" : ""}`}
                    style={{ insetInlineStart: `${tick.fraction * 100}%` }}
                  >
                    {formatDuration(tick.ms)}
                  </span>
                ))}
              </span>
              <span />
            </div>
            <ol className="waterfall" aria-label="Spans">
              {rows.map((row) => (
                <li key={row.span.spanId} className={`span span-${row.span.status.code}`} data-depth={row.depth}>
                  <details>
                    <summary>
                      <span className="span-name" style={{ paddingInlineStart: `${row.depth * 1.25}rem` }}>
                        {/* A span named after its kind ("step gather") says it once. */}
                        {row.span.name.startsWith(`${row.span.kind} `) ? null : (
                          <span className="span-kind">{row.span.kind} </span>
                        )}
                        {row.span.name}
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
          </>
        )}
      </QueryState>
    </>
  );
}
