import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type ExecutionStatusValue, executionStatuses } from "@weft/contract";
import { type ReactNode, useId } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { ExecutionTable } from "../../components/execution-table.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { statusChoiceLabel } from "../../components/status-badge.tsx";
import { useLoadOnScroll } from "../../components/use-load-on-scroll.ts";

const pageSize = 50;
/** The server's rule for a tag (`runTagSchema`), checked here so that a half-typed bad tag is named, not sent. */
const tagPattern = /^[A-Za-z0-9_.:/=-]{1,64}$/;

function isStatus(value: string | null): value is ExecutionStatusValue {
  return executionStatuses.some((status) => status === value);
}

/** A project's executions, newest first, filtered by status, workflow and tag, loading older ones on scroll. */
export function ExecutionsPage(): ReactNode {
  const { projectId = "" } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const statusParam = searchParams.get("status");
  const status = isStatus(statusParam) ? statusParam : undefined;
  const workflow = searchParams.get("workflow") ?? undefined;
  const tagParam = searchParams.get("tag") ?? "";
  const tagValid = tagPattern.test(tagParam);
  const tag = tagValid ? tagParam : undefined;
  const statusId = useId();
  const workflowId = useId();
  const tagId = useId();
  const tagHintId = useId();
  const workflows = useQuery(weftQuery.workflows.list.queryOptions({ input: { projectId } }));
  const executions = useInfiniteQuery(
    weftQuery.workflows.listExecutions.infiniteOptions({
      input: (before: string | null) => ({
        projectId,
        ...(status === undefined ? {} : { status }),
        ...(workflow === undefined ? {} : { workflow }),
        ...(tag === undefined ? {} : { tags: [tag] }),
        pagination: before === null ? { last: pageSize } : { last: pageSize, before },
      }),
      initialPageParam: null,
      getNextPageParam: (page) => (page.pagination.hasPreviousPage ? page.pagination.startCursor : undefined),
    }),
  );
  useLiveUpdates({ projectId }, [weftQuery.workflows.listExecutions.key()]);
  const rows = executions.data?.pages.flatMap((page) => [...page.results].reverse()) ?? [];
  const setFilter = (name: string, value: string): void => {
    const next = new URLSearchParams(searchParams);
    if (value === "") next.delete(name);
    else next.set(name, value);
    setSearchParams(next, { replace: true });
  };
  const sentinel = useLoadOnScroll(executions);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = executions;
  const total = executions.data?.pages[0];
  return (
    <>
      <PageTitle title="Executions">
        <p>
          <Link to={`/projects/${projectId}`}>Back to the project</Link>
          {total === undefined ? null : (
            <span className="muted">
              {" "}
              · {total.totalCount}
              {total.totalCountIsLowerBound ? "+" : ""} matching
            </span>
          )}
        </p>
      </PageTitle>
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <div>
          <label htmlFor={statusId}>Status</label>
          <select id={statusId} value={status ?? ""} onChange={(event) => setFilter("status", event.target.value)}>
            <option value="">Any status</option>
            {executionStatuses.map((candidate) => (
              <option key={candidate} value={candidate}>
                {statusChoiceLabel(candidate)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={workflowId}>Workflow</label>
          <select
            id={workflowId}
            value={workflow ?? ""}
            onChange={(event) => setFilter("workflow", event.target.value)}
          >
            <option value="">Any workflow</option>
            {(workflows.data?.results ?? []).map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={tagId}>Tag</label>
          <input
            id={tagId}
            type="search"
            value={tagParam}
            maxLength={64}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={tagParam !== "" && !tagValid}
            aria-describedby={tagParam !== "" && !tagValid ? tagHintId : undefined}
            onChange={(event) => setFilter("tag", event.target.value)}
          />
          {tagParam !== "" && !tagValid ? (
            <p id={tagHintId} className="notice error" role="alert">
              A tag holds only letters, digits and _ . : / = -
            </p>
          ) : null}
        </div>
      </form>
      <QueryState
        query={executions}
        loading="executions"
        isEmpty={() => rows.length === 0}
        empty={
          status === undefined && workflow === undefined && tag === undefined
            ? "No executions yet: run a workflow from the project page, or submit one of its forms."
            : "No execution matches these filters."
        }
      >
        {() => <ExecutionTable executions={rows} />}
      </QueryState>
      <div ref={sentinel} />
      {hasNextPage ? (
        <button
          type="button"
          className="button secondary"
          disabled={isFetchingNextPage}
          onClick={() => void fetchNextPage()}
        >
          {isFetchingNextPage ? "Loading older executions…" : "Older executions"}
        </button>
      ) : null}
    </>
  );
}
