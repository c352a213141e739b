import { useMutation, useQuery } from "@tanstack/react-query";
import type { JsonSchema } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { useNavigate } from "react-router";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { JsonView } from "../../components/json-view.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { exampleInput, inputProblems } from "./input-problems.ts";

/** The workflows of the active deployment, each with a Run button for those who may write. */
export function WorkflowsSection({ projectId, writable }: { projectId: string; writable: boolean }): ReactNode {
  const workflows = useQuery(weftQuery.workflows.list.queryOptions({ input: { projectId } }));
  const [running, setRunning] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="workflows-heading">
      <h2 id="workflows-heading">Workflows</h2>
      <QueryState
        query={workflows}
        loading="workflows"
        isEmpty={(data) => data.results.length === 0}
        empty={
          <>
            No workflows yet: define one in <code>weft.config.ts</code> and run <code>weft deploy</code>.
          </>
        }
      >
        {(data) => (
          <ul className="plain-list stack">
            {data.results.map((workflow) => (
              <li key={workflow.name} className="workflow">
                <div className="row">
                  <h3>{workflow.name}</h3>
                  {writable && running !== workflow.name ? (
                    <button type="button" className="button small" onClick={() => setRunning(workflow.name)}>
                      Run {workflow.name}
                    </button>
                  ) : null}
                </div>
                {workflow.inputSchema === undefined ? null : (
                  <details>
                    <summary>Input schema</summary>
                    <JsonView value={workflow.inputSchema} label={`Input schema of ${workflow.name}`} />
                  </details>
                )}
                {running === workflow.name ? (
                  <RunForm
                    projectId={projectId}
                    workflow={workflow.name}
                    schema={workflow.inputSchema}
                    onClose={() => setRunning(null)}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

function RunForm({
  projectId,
  workflow,
  schema,
  onClose,
}: {
  projectId: string;
  workflow: string;
  schema: JsonSchema | undefined;
  onClose: () => void;
}): ReactNode {
  const [text, setText] = useState(() => exampleInput(schema));
  const [problems, setProblems] = useState<string[]>([]);
  const navigate = useNavigate();
  const id = useId();
  const problemsId = useId();
  const run = useMutation(
    weftQuery.workflows.run.mutationOptions({ onSuccess: ({ executionId }) => navigate(`/executions/${executionId}`) }),
  );
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const found = await inputProblems(text, schema);
    setProblems(found);
    if (found.length === 0) run.mutate({ projectId, workflow, input: JSON.parse(text) });
  };
  return (
    <form className="stack" onSubmit={(event) => void submit(event)}>
      <label htmlFor={id}>Input of {workflow} (JSON)</label>
      <textarea
        id={id}
        className="code-editor"
        rows={8}
        spellCheck={false}
        value={text}
        aria-invalid={problems.length > 0}
        aria-describedby={problems.length > 0 ? problemsId : undefined}
        onChange={(event) => setText(event.target.value)}
      />
      {problems.length === 0 ? null : (
        <ul id={problemsId} className="notice error" role="alert">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      <div className="row">
        <button type="submit" className="button" disabled={run.isPending}>
          Start execution
        </button>
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
      <ErrorNotice error={run.error} />
    </form>
  );
}
