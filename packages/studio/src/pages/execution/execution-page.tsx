import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Execution, type ExecutionStatusValue, finalExecutionStatuses } from "@weft/contract";
import type { ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useLiveUpdates } from "../../api/live-updates.ts";
import { describeError } from "../../api/studio-error.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { StatusBadge } from "../../components/status-badge.tsx";
import { TagList } from "../../components/tag-list.tsx";
import { formatDuration, TimeText } from "../../components/time-text.tsx";
import { WaitTokenCard } from "../../components/wait-token-card.tsx";
import { canWrite, useRoleIn } from "../../components/workspace.tsx";
import { LogList } from "./log-list.tsx";

const finished = new Set<ExecutionStatusValue>(finalExecutionStatuses);

/** One execution, refreshed by its live event stream until it finishes. */
export function ExecutionPage(): ReactNode {
  const { executionId = "" } = useParams();
  const execution = useQuery(weftQuery.workflows.getExecution.queryOptions({ input: { executionId } }));
  // A finished execution changes no more; one that cannot be read (an unknown id, a 403) has nothing to follow.
  const settled =
    (execution.data !== undefined && finished.has(execution.data.status)) ||
    (execution.data === undefined && execution.error !== null && describeError(execution.error).final);
  const projectId = execution.data?.projectId;
  // A child's changes are its own events, not its parent's: while one is unfinished, the page
  // follows the project's stream, which carries them.
  const childrenRunning = execution.data?.children.some((child) => !finished.has(child.status)) ?? false;
  useLiveUpdates(childrenRunning && projectId !== undefined ? { projectId } : settled ? undefined : { executionId }, [
    weftQuery.workflows.getExecution.queryKey({ input: { executionId } }),
  ]);
  const project = useQuery(
    weftQuery.projects.get.queryOptions({ input: projectId === undefined ? skipToken : { projectId } }),
  );
  const role = useRoleIn(project.data?.workspaceId);
  return (
    <QueryState query={execution} loading="the execution">
      {(data) => <ExecutionView execution={data} writable={canWrite(role)} />}
    </QueryState>
  );
}

function ExecutionView({ execution, writable }: { execution: Execution; writable: boolean }): ReactNode {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const cancel = useMutation(
    weftQuery.workflows.cancelExecution.mutationOptions({
      onSuccess: () =>
        queryClient.invalidateQueries({
          queryKey: weftQuery.workflows.getExecution.queryKey({ input: { executionId: execution.id } }),
        }),
    }),
  );
  const rerun = useMutation(
    weftQuery.workflows.rerunExecution.mutationOptions({
      onSuccess: ({ executionId }) => navigate(`/executions/${executionId}`),
    }),
  );
  const done = finished.has(execution.status);
  return (
    <>
      <PageTitle title={`Execution of ${execution.workflow}`}>
        <p className="muted">
          <code>{execution.id}</code> · <Link to={`/projects/${execution.projectId}`}>Project</Link> ·{" "}
          <Link to={`/projects/${execution.projectId}/traces/${execution.traceId}`}>Trace</Link>
        </p>
      </PageTitle>
      <section className="card" aria-labelledby="status-heading">
        <h2 id="status-heading" className="visually-hidden">
          Status
        </h2>
        <div className="row">
          <p aria-live="polite">
            Status: <StatusBadge status={execution.status} />
            {execution.cancelRequested && !done ? " (cancel requested)" : ""}
          </p>
          {writable ? (
            <div className="row">
              {done ? null : (
                <button
                  type="button"
                  className="button danger"
                  disabled={cancel.isPending || execution.cancelRequested}
                  onClick={() => cancel.mutate({ executionId: execution.id })}
                >
                  Cancel
                </button>
              )}
              <button
                type="button"
                className="button secondary"
                disabled={rerun.isPending}
                onClick={() => rerun.mutate({ executionId: execution.id })}
              >
                Re-run
              </button>
            </div>
          ) : null}
        </div>
        <ErrorNotice error={cancel.error} />
        <ErrorNotice error={rerun.error} />
        <dl className="facts">
          <dt>Trigger</dt>
          <dd>
            {execution.trigger.kind}
            {execution.trigger.name === null ? "" : ` ${execution.trigger.name}`}
          </dd>
          <dt>Created</dt>
          <dd>
            <TimeText at={execution.createdAt} />
          </dd>
          <dt>Started</dt>
          <dd>
            <TimeText at={execution.startedAt} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <TimeText at={execution.finishedAt} />
          </dd>
          <dt>Attempt</dt>
          <dd>
            {execution.attempt} of {execution.maxAttempts}
          </dd>
          {execution.rerunOf === null ? null : (
            <>
              <dt>Re-run of</dt>
              <dd>
                <Link to={`/executions/${execution.rerunOf}`}>{execution.rerunOf}</Link>
              </dd>
            </>
          )}
          {execution.parentExecutionId === null ? null : (
            <>
              <dt>Parent</dt>
              <dd>
                <Link to={`/executions/${execution.parentExecutionId}`}>{execution.parentExecutionId}</Link>
              </dd>
            </>
          )}
          {execution.tags.length === 0 ? null : (
            <>
              <dt>Tags</dt>
              <dd>
                <TagList tags={execution.tags} projectId={execution.projectId} />
              </dd>
            </>
          )}
        </dl>
      </section>
      {execution.children.length === 0 ? null : (
        <section className="card" aria-labelledby="children-heading">
          <h2 id="children-heading">Child executions</h2>
          <ul className="plain-list" aria-labelledby="children-heading">
            {execution.children.map((child) => (
              <li key={child.id}>
                <Link to={`/executions/${child.id}`}>{child.workflow}</Link>{" "}
                <code className="muted small-id">{child.id.slice(-8)}</code> <StatusBadge status={child.status} />
              </li>
            ))}
          </ul>
          {execution.children.length >= 100 ? <p className="muted">The first 100 are shown.</p> : null}
        </section>
      )}
      {execution.tokens.length === 0 ? null : (
        <section className="card" aria-labelledby="tokens-heading">
          <h2 id="tokens-heading">Wait tokens</h2>
          {execution.tokens.map((token) => (
            <WaitTokenCard key={token.name} executionId={execution.id} token={token} writable={writable} />
          ))}
        </section>
      )}
      <div className="grid">
        <section className="card" aria-labelledby="input-heading">
          <h2 id="input-heading">Input</h2>
          <JsonView value={execution.input} label="Input as JSON" />
        </section>
        <section className="card" aria-labelledby="output-heading">
          <h2 id="output-heading">{execution.error === null ? "Output" : "Error"}</h2>
          {execution.error === null ? (
            <JsonView value={execution.output} label="Output as JSON" />
          ) : (
            <div className="notice error">
              <p>
                <strong>{execution.error.name}</strong>: {execution.error.message}
              </p>
              {execution.error.stack === undefined ? null : <pre className="json">{execution.error.stack}</pre>}
            </div>
          )}
        </section>
      </div>
      <section className="card" aria-labelledby="steps-heading">
        <h2 id="steps-heading">Steps</h2>
        {execution.steps.length === 0 && execution.failedSteps.length === 0 ? (
          <p className="muted">{done ? "This execution ran no steps." : "No step has finished yet."}</p>
        ) : (
          <ol className="steps">
            {stepsInOrder(execution).map((step) => (
              <StepItem key={`${step.kind}-${step.name}-${step.attempt}-${step.startedAt}`} step={step} />
            ))}
          </ol>
        )}
        {execution.logs.length === 0 ? null : (
          <>
            <h3>Logs outside steps</h3>
            <LogList logs={execution.logs} />
          </>
        )}
      </section>
      {execution.attempts.length > 1 ? (
        <section className="card" aria-labelledby="attempts-heading">
          <h2 id="attempts-heading">Attempts</h2>
          <ol className="plain-list">
            {execution.attempts.map((attempt) => (
              <li key={`${attempt.number}-${attempt.startedAt}`}>
                #{attempt.number}
                {attempt.resumed ? " resumed after a wait," : ""} {attempt.status}
                {attempt.error === null ? "" : `: ${attempt.error}`} · <TimeText at={attempt.startedAt} />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </>
  );
}

type StepEntry = Execution["steps"][number] | (Execution["failedSteps"][number] & { kind: "failed" });

/**
 * The steps that completed and those that threw (kept only in the trace's spans), attempt by
 * attempt; within one, a throw ends the attempt unless the workflow catches it, so the step that
 * threw comes after those that completed.
 */
function stepsInOrder(execution: Execution): StepEntry[] {
  const failed = execution.failedSteps.map((step) => ({ ...step, kind: "failed" as const }));
  return [...execution.steps, ...failed].sort((a, b) => a.attempt - b.attempt);
}

function StepItem({ step }: { step: StepEntry }): ReactNode {
  return (
    <li className="step">
      <div className="row">
        <h3>
          {step.kind === "sleep" ? "Sleep " : ""}
          {step.name}
        </h3>
        <span className="muted">
          {step.kind === "failed" ? (
            <>
              <StatusBadge status="failed" />{" "}
            </>
          ) : null}
          {formatDuration(step.durationMs)}
          {step.attempt > 1 ? ` · attempt ${step.attempt}` : ""}
        </span>
      </div>
      {step.kind === "failed" ? (
        <div className="notice error">
          <p>
            <strong>{step.error.name}</strong>: {step.error.message}
          </p>
        </div>
      ) : (
        <>
          {step.output === undefined ? null : (
            <details>
              <summary>Result</summary>
              <JsonView value={step.output} label={`Result of step ${step.name}`} />
            </details>
          )}
          <LogList logs={step.logs} />
        </>
      )}
    </li>
  );
}
