import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schedule } from "@weft/contract";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { ExecutionTable } from "../../components/execution-table.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { cronInWords } from "./cron-in-words.ts";
import { scheduleState } from "./schedule-state.ts";

const startedShown = 5;

/**
 * One schedule: when it runs, in words; its next and last runs; what it started; pause, resume, run now.
 * Its heading is of `headingLevel`, one below the page's or section's, so that no level is skipped.
 */
export function ScheduleCard({
  projectId,
  schedule,
  writable,
  headingLevel,
}: {
  projectId: string;
  schedule: Schedule;
  writable: boolean;
  headingLevel: 2 | 3;
}): ReactNode {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const SubHeading = headingLevel === 2 ? "h3" : "h4";
  const queryClient = useQueryClient();
  const refresh = async (): Promise<void> => {
    await queryClient.invalidateQueries({ queryKey: weftQuery.schedules.list.key({ input: { projectId } }) });
    await queryClient.invalidateQueries({ queryKey: weftQuery.workflows.listExecutions.key() });
  };
  const pause = useMutation(weftQuery.schedules.pause.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(weftQuery.schedules.resume.mutationOptions({ onSuccess: refresh }));
  const runNow = useMutation(weftQuery.schedules.runNow.mutationOptions({ onSuccess: refresh }));
  const started = useQuery(
    weftQuery.workflows.listExecutions.queryOptions({
      input: { projectId, schedule: schedule.name, pagination: { last: startedShown } },
      refetchInterval: 5_000,
    }),
  );
  const rows = [...(started.data?.results ?? [])].reverse();
  const state = scheduleState(schedule);
  const paused = !schedule.enabled;
  const pending = pause.isPending || resume.isPending || runNow.isPending;
  const headingId = `schedule-${projectId}-${schedule.name}`;
  return (
    <article className="card schedule" aria-labelledby={headingId}>
      <div className="row">
        <Heading className="schedule-name" id={headingId}>
          {schedule.name}
        </Heading>
        <span className={`badge ${state.className}`}>{state.label}</span>
      </div>
      <p className="schedule-words">{cronInWords(schedule.cron, schedule.timezone)}</p>
      <dl className="facts">
        <dt>Cron</dt>
        <dd>
          <code>{schedule.cron}</code>
        </dd>
        <dt>Workflow</dt>
        <dd>{schedule.workflow}</dd>
        <dt>Next run</dt>
        <dd>
          {schedule.nextRunAt === null ? (
            <span className="muted">none while paused</span>
          ) : (
            <TimeText at={schedule.nextRunAt} />
          )}
        </dd>
        <dt>Last run</dt>
        <dd>
          {schedule.lastRunAt === null ? (
            <span className="muted">never</span>
          ) : (
            <>
              <TimeText at={schedule.lastRunAt} />
              {schedule.lastExecutionId === null ? null : (
                <>
                  {" · "}
                  <Link to={`/executions/${schedule.lastExecutionId}`}>its execution</Link>
                </>
              )}
            </>
          )}
        </dd>
        {schedule.lastSkippedAt === null ? null : (
          <>
            <dt>Last skipped</dt>
            <dd>
              <TimeText at={schedule.lastSkippedAt} /> · {schedule.lastSkipReason}
            </dd>
          </>
        )}
      </dl>
      {writable ? (
        <div className="actions">
          {paused ? (
            <button
              type="button"
              className="button secondary"
              disabled={pending}
              onClick={() => resume.mutate({ projectId, name: schedule.name })}
            >
              Resume {schedule.name}
            </button>
          ) : (
            <button
              type="button"
              className="button secondary"
              disabled={pending}
              onClick={() => pause.mutate({ projectId, name: schedule.name })}
            >
              Pause {schedule.name}
            </button>
          )}
          <button
            type="button"
            className="button"
            disabled={pending}
            onClick={() => runNow.mutate({ projectId, name: schedule.name })}
          >
            Run {schedule.name} now
          </button>
        </div>
      ) : null}
      {runNow.data === undefined ? null : (
        <p role="status">
          Started <Link to={`/executions/${runNow.data.executionId}`}>{runNow.data.executionId}</Link>.
        </p>
      )}
      <ErrorNotice error={pause.error ?? resume.error ?? runNow.error} />
      <SubHeading className="schedule-started">Executions it started</SubHeading>
      <QueryState
        query={started}
        loading="its executions"
        isEmpty={() => rows.length === 0}
        empty="None yet: it starts one at its next run, or run it now."
      >
        {() => <ExecutionTable executions={rows} label={`Executions started by ${schedule.name}`} />}
      </QueryState>
    </article>
  );
}
