import { useInfiniteQuery } from "@tanstack/react-query";
import type { WeftClient } from "@weft/client";
import { eventNamePattern } from "@weft/contract";
import { type ReactNode, useId } from "react";
import { Link, useSearchParams } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { JsonView } from "../../components/json-view.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { useLoadOnScroll } from "../../components/use-load-on-scroll.ts";
import { SendEventForm } from "./send-event-form.tsx";

type SentEvent = Awaited<ReturnType<WeftClient["events"]["list"]>>["data"][number];

const pageSize = 50;
/** How often the list is read again besides the live stream. */
const quietEventsRefreshMs = 60_000;

/**
 * A project's events, newest first, filtered by name (`?name=` in the address), loading older ones
 * on scroll, with a form to send a test event for a member who may change the project. `picker`
 * is a first field of the filters (the project, on the workspace's page).
 */
export function ProjectEvents({
  projectId,
  writable,
  picker,
}: {
  projectId: string;
  writable: boolean;
  picker?: ReactNode;
}): ReactNode {
  const [searchParams, setSearchParams] = useSearchParams();
  const nameParam = searchParams.get("name") ?? "";
  const nameValid = eventNamePattern.test(nameParam);
  const name = nameValid ? nameParam : undefined;
  const nameId = useId();
  const nameHintId = useId();
  const events = useInfiniteQuery(
    weftQuery.events.list.infiniteOptions({
      input: (cursor: string | null) => ({
        projectId,
        limit: pageSize,
        ...(name === undefined ? {} : { name }),
        ...(cursor === null ? {} : { cursor }),
      }),
      initialPageParam: null,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      // An event that starts, resumes or cancels executions shows in the project's stream; one that
      // does nothing does not, so it shows here within a minute.
      refetchInterval: quietEventsRefreshMs,
    }),
  );
  useLiveUpdates({ projectId }, [weftQuery.events.list.key()]);
  const sentinel = useLoadOnScroll(events);
  const rows = events.data?.pages.flatMap((page) => page.data) ?? [];
  const setName = (value: string): void => {
    const next = new URLSearchParams(searchParams);
    if (value === "") next.delete("name");
    else next.set("name", value);
    setSearchParams(next, { replace: true });
  };
  return (
    <div className="stack">
      {writable ? <SendEventForm projectId={projectId} /> : null}
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        {picker}
        <div>
          <label htmlFor={nameId}>Event name</label>
          <input
            id={nameId}
            type="search"
            value={nameParam}
            maxLength={128}
            spellCheck={false}
            autoComplete="off"
            placeholder="order.created"
            aria-invalid={nameParam !== "" && !nameValid}
            aria-describedby={nameParam !== "" && !nameValid ? nameHintId : undefined}
            onChange={(event) => setName(event.target.value.trim())}
          />
          {nameParam !== "" && !nameValid ? (
            <p id={nameHintId} className="notice error" role="alert">
              An event name starts with a letter or digit and holds only letters, digits and . _ : / -
            </p>
          ) : null}
        </div>
      </form>
      <QueryTable
        query={events}
        loading="events"
        empty={
          name === undefined ? (
            <>
              No events yet. Send one with <code>weft events send order.created --data '{`{"orderId": "o-1"}`}'</code>,
              from a workflow with <code>ctx.sendEvent</code>, or with <code>events.send</code> in the API; a workflow
              with <code>on: [{`{ event: "order.created" }`}]</code> starts on each.
            </>
          ) : (
            <>
              No <code>{name}</code> events.
            </>
          )
        }
        label="Events"
        rows={rows}
        rowKey={(event) => event.id}
        columns={[
          {
            name: "Event",
            cell: (event) => (
              <>
                <code>{event.name}</code>
                <br />
                <code className="muted small-id">{event.id}</code>
              </>
            ),
          },
          { name: "Sent", cell: (event) => <TimeText at={event.sentAt} /> },
          {
            name: "Source",
            cell: (event) =>
              event.source.name === null ? event.source.kind : `${event.source.kind} ${event.source.name}`,
          },
          { name: "What it did", cell: (event) => <EventEffects event={event} /> },
          {
            name: "Data",
            cell: (event) => (
              <details>
                <summary>Data</summary>
                <JsonView value={event.data} label={`Data of ${event.id}`} />
              </details>
            ),
          },
        ]}
      />
      <div ref={sentinel} />
      {events.hasNextPage ? (
        <div>
          <button
            type="button"
            className="button secondary"
            disabled={events.isFetchingNextPage}
            onClick={() => void events.fetchNextPage()}
          >
            {events.isFetchingNextPage ? "Loading older events…" : "Older events"}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The executions an event started, each a link to its page, and how many it resumed or cancelled. */
function EventEffects({ event }: { event: SentEvent }): ReactNode {
  const counts = [
    event.resumed === 0 ? null : `resumed ${event.resumed}`,
    event.cancelled === 0 ? null : `cancelled ${event.cancelled}`,
  ].filter((part) => part !== null);
  if (event.executions.length === 0 && counts.length === 0) return <span className="muted">nothing</span>;
  return (
    <>
      {event.executions.length === 0 ? null : (
        <ul className="plain-list" aria-label={`Executions started by ${event.id}`}>
          {event.executions.map((started) => (
            <li key={started.executionId}>
              <Link to={`/executions/${started.executionId}`}>{started.workflow}</Link>{" "}
              <code className="muted small-id">{started.executionId.slice(-8)}</code>
            </li>
          ))}
        </ul>
      )}
      {counts.length === 0 ? null : <span className="muted">{counts.join(" · ")}</span>}
    </>
  );
}
