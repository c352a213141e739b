import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { QueryState } from "../../components/query-state.tsx";
import { ScheduleCard } from "./schedule-card.tsx";

/** The schedules of a project's active deployment, by name, each headed at `headingLevel`. */
export function ProjectSchedules({
  projectId,
  writable,
  headingLevel,
}: {
  projectId: string;
  writable: boolean;
  headingLevel: 2 | 3;
}): ReactNode {
  const schedules = useQuery(
    weftQuery.schedules.list.queryOptions({
      input: { projectId, pagination: { first: 200 } },
      refetchInterval: 10_000,
    }),
  );
  return (
    <QueryState
      query={schedules}
      loading="schedules"
      isEmpty={(data) => data.results.length === 0}
      empty={
        <>
          No schedules: add <code>schedules</code> to <code>weft.config.ts</code> and run <code>weft deploy</code>.
        </>
      }
    >
      {({ results }) => (
        <div className="stack">
          {results.map((schedule) => (
            <ScheduleCard
              key={schedule.name}
              projectId={projectId}
              schedule={schedule}
              writable={writable}
              headingLevel={headingLevel}
            />
          ))}
        </div>
      )}
    </QueryState>
  );
}
