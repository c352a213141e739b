import { useQueries } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { TimeText } from "../../components/time-text.tsx";

const shown = 5;

/** The workspace's next scheduled runs, soonest first, across its projects. */
export function NextRuns({ projects }: { projects: readonly { id: string; name: string }[] }): ReactNode {
  const lists = useQueries({
    queries: projects.map((project) =>
      weftQuery.schedules.list.queryOptions({
        input: { projectId: project.id, pagination: { first: 200 } },
        refetchInterval: 30_000,
      }),
    ),
  });
  const upcoming = lists
    .flatMap((list, index) => {
      const project = projects[index];
      return project === undefined
        ? []
        : (list.data?.results ?? []).map((schedule) => ({ project, schedule, nextRunAt: schedule.nextRunAt }));
    })
    .filter((entry): entry is typeof entry & { nextRunAt: string } => entry.nextRunAt !== null)
    .sort((a, b) => a.nextRunAt.localeCompare(b.nextRunAt));
  const total = lists.reduce((sum, list) => sum + (list.data?.results.length ?? 0), 0);
  return (
    <section className="card" aria-labelledby="schedules-heading">
      <h2 id="schedules-heading">Next scheduled runs</h2>
      {upcoming.length === 0 ? (
        <p className="muted">{total === 0 ? "No schedules." : "No schedule is due: all are paused."}</p>
      ) : (
        <ul className="plain-list">
          {upcoming.slice(0, shown).map(({ project, schedule, nextRunAt }) => (
            <li key={`${project.id}/${schedule.name}`}>
              <Link to={`/projects/${project.id}/schedules`}>{schedule.name}</Link>{" "}
              <span className="muted">
                {project.name} · <TimeText at={nextRunAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <Link to="/schedules">All schedules</Link>
    </section>
  );
}
