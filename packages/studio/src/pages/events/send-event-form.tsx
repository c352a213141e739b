import { useMutation, useQueryClient } from "@tanstack/react-query";
import { eventNamePattern } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { Link } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";

/** What is wrong with a test event before it is sent: its name by the server's rule, its data as JSON. */
function problemsOf(name: string, data: string): string[] {
  const problems: string[] = [];
  if (!eventNamePattern.test(name))
    problems.push("The name starts with a letter or digit and holds only letters, digits and . _ : / - (at most 128).");
  try {
    JSON.parse(data);
  } catch (error) {
    problems.push(`The data is not JSON: ${(error as Error).message}`);
  }
  return problems;
}

/** Sends an event to a project through `events.send`, as `weft events send` does, and says what it did. */
export function SendEventForm({ projectId }: { projectId: string }): ReactNode {
  const [name, setName] = useState("");
  const [data, setData] = useState("{}");
  const [problems, setProblems] = useState<string[]>([]);
  const nameId = useId();
  const dataId = useId();
  const problemsId = useId();
  const queryClient = useQueryClient();
  const send = useMutation(
    weftQuery.events.send.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: weftQuery.events.list.key() }),
    }),
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const found = problemsOf(name, data);
    setProblems(found);
    if (found.length === 0) send.mutate({ projectId, name, data: JSON.parse(data) });
  };
  const sent = send.data;
  return (
    <details className="card send-event">
      <summary>Send a test event</summary>
      <form className="stack" onSubmit={submit}>
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          value={name}
          maxLength={128}
          spellCheck={false}
          autoComplete="off"
          placeholder="order.created"
          onChange={(event) => setName(event.target.value.trim())}
        />
        <label htmlFor={dataId}>Data (JSON)</label>
        <textarea
          id={dataId}
          className="code-editor"
          rows={4}
          spellCheck={false}
          value={data}
          aria-invalid={problems.length > 0}
          aria-describedby={problems.length > 0 ? problemsId : undefined}
          onChange={(event) => setData(event.target.value)}
        />
        {problems.length === 0 ? null : (
          <ul id={problemsId} className="notice error" role="alert">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
        <div>
          <button type="submit" className="button" disabled={send.isPending}>
            Send test event
          </button>
        </div>
        <ErrorNotice error={send.error} />
        {sent === undefined ? null : (
          <p role="status">
            Sent <code>{sent.id}</code>
            {sent.duplicate ? " (already sent with this id)" : ""}:{" "}
            {sent.executions.length === 0 ? (
              "it started no execution"
            ) : (
              <>
                started{" "}
                {sent.executions.map((started, index) => (
                  <span key={started.executionId}>
                    {index === 0 ? "" : ", "}
                    <Link to={`/executions/${started.executionId}`}>{started.workflow}</Link>
                  </span>
                ))}
              </>
            )}
            {sent.resumed === 0 ? "" : `, resumed ${sent.resumed}`}
            {sent.cancelled === 0 ? "" : `, cancelled ${sent.cancelled}`}.
          </p>
        )}
      </form>
    </details>
  );
}
