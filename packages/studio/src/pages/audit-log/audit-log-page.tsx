import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { AuditEvent } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { useLoadOnScroll } from "../../components/use-load-on-scroll.ts";
import { canManage, useWorkspace } from "../../components/workspace.tsx";

/** A workspace's audit log, newest first, filtered by action and actor, loading older events on scroll. */
export function AuditLogPage(): ReactNode {
  const { workspace } = useWorkspace();
  const [filter, setFilter] = useState<{ action?: string; actor?: string }>({});
  const actionId = useId();
  const actorId = useId();
  const events = useInfiniteQuery(
    weftQuery.access.auditLog.infiniteOptions({
      input: (cursor: string | null) => ({
        workspaceId: workspace.id,
        limit: 50,
        ...(Object.keys(filter).length === 0 ? {} : { filter }),
        ...(cursor === null ? {} : { cursor }),
      }),
      initialPageParam: null,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      enabled: canManage(workspace.role),
    }),
  );
  // Events name some actors by account id alone: the members' list gives their addresses.
  const members = useQuery(
    weftQuery.access.listMembers.queryOptions({
      input: { workspaceId: workspace.id, pagination: { first: 100 } },
      enabled: canManage(workspace.role),
    }),
  );
  const emails = new Map((members.data?.results ?? []).map((member) => [member.accountId, member.email]));
  const sentinel = useLoadOnScroll(events);
  const rows = events.data?.pages.flatMap((page) => page.data) ?? [];
  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const action = String(form.get("action") ?? "").trim();
    const actor = String(form.get("actor") ?? "").trim();
    setFilter({ ...(action === "" ? {} : { action }), ...(actor === "" ? {} : { actor }) });
  };
  if (!canManage(workspace.role)) {
    return (
      <>
        <PageTitle title="Audit log" />
        <p>Only the owners and admins of {workspace.name} can read its audit log.</p>
      </>
    );
  }
  return (
    <>
      <PageTitle title="Audit log" />
      <form className="filters" onSubmit={submit} aria-label="Filters">
        <div>
          <label htmlFor={actionId}>Action</label>
          <input id={actionId} name="action" placeholder="member.invited" />
        </div>
        <div>
          <label htmlFor={actorId}>Actor (account or credential id)</label>
          <input id={actorId} name="actor" />
        </div>
        <div className="form-end">
          <button type="submit" className="button secondary">
            Filter
          </button>
        </div>
      </form>
      <QueryTable
        query={events}
        loading="the audit log"
        empty="No events match."
        label="Audit events"
        rows={rows}
        rowKey={(event) => event.id}
        columns={[
          { name: "When", cell: (event) => <TimeText at={event.createdAt} /> },
          { name: "Action", cell: (event) => <code>{event.action}</code> },
          { name: "Who", cell: (event) => actorOf(event, emails) },
          {
            name: "Target",
            cell: (event) => (
              <>
                {event.targetType} <code className="muted small-id">{event.targetId}</code>
              </>
            ),
          },
        ]}
      />
      <div ref={sentinel} />
      {events.hasNextPage ? (
        <button
          type="button"
          className="button secondary"
          disabled={events.isFetchingNextPage}
          onClick={() => void events.fetchNextPage()}
        >
          Older events
        </button>
      ) : null}
    </>
  );
}

/** Who acted, by address (from the event, else the members' list; a former member keeps their id). */
function actorOf(event: AuditEvent, emails: ReadonlyMap<string, string>): string {
  const { accountId } = event.actor;
  const who =
    event.actor.email ??
    (accountId === undefined || accountId === null ? undefined : (emails.get(accountId) ?? accountId)) ??
    "the platform";
  const through = event.actor.agent?.clientId ?? event.actor.agent?.userAgent;
  return through === undefined || through === null ? who : `${who} through ${through}`;
}
