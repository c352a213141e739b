import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { WaitTokenView } from "@weft/contract";
import type { ReactNode } from "react";
import { weftQuery } from "../api/weft-query.ts";
import { ErrorNotice } from "./error-notice.tsx";
import { TimeText } from "./time-text.tsx";
import "./wait-token-card.css";

const statusWords: Record<WaitTokenView["status"], string> = {
  pending: "waiting",
  completed: "answered",
  timed_out: "timed out",
  closed: "closed",
};

function approverText(token: WaitTokenView): string {
  if (token.completedBy !== null) return token.completedBy.email ?? token.completedBy.accountId;
  return token.status === "completed" ? "someone with its link" : "";
}

/**
 * One wait token: what it asks (the workflow's title, description and fields, shown as text), its
 * status, who may answer and who did; and for a member who may change the project, while it waits,
 * Approve and Reject.
 */
export function WaitTokenCard({
  executionId,
  token,
  writable,
  headingLevel = 3,
}: {
  executionId: string;
  token: WaitTokenView;
  writable: boolean;
  headingLevel?: 2 | 3;
}): ReactNode {
  const queryClient = useQueryClient();
  const answer = useMutation(
    weftQuery.workflows.answerToken.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: weftQuery.workflows.getExecution.key() }),
          queryClient.invalidateQueries({ queryKey: weftQuery.studio.approvals.key() }),
        ]),
    }),
  );
  const title = token.title ?? token.name;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const approver = approverText(token);
  return (
    <article className="wait-token" aria-label={title}>
      <div className="row">
        <Heading>{title}</Heading>
        <span className={`badge token-${token.status}`}>{statusWords[token.status]}</span>
      </div>
      {token.description === null ? null : <p className="token-description">{token.description}</p>}
      <dl className="facts">
        {token.fields.map((field, index) => (
          // Labels may repeat: the position keeps each field apart.
          // biome-ignore lint/suspicious/noArrayIndexKey: fields never reorder
          <div className="fact" key={index}>
            <dt>{field.label}</dt>
            <dd>{field.value}</dd>
          </div>
        ))}
        <div className="fact">
          <dt>Token</dt>
          <dd>
            <code>{token.name}</code>
          </dd>
        </div>
        {token.event === null ? (
          <div className="fact">
            <dt>Who may answer</dt>
            <dd>{token.approvers === "members" ? "members of the workspace" : "anyone with its link"}</dd>
          </div>
        ) : (
          <div className="fact">
            <dt>Waits for the event</dt>
            <dd>
              <code>{token.event}</code>
            </dd>
          </div>
        )}
        <div className="fact">
          <dt>{token.status === "pending" ? "Expires" : "Ended"}</dt>
          <dd>
            <TimeText at={token.status === "pending" ? token.expiresAt : token.finishedAt} />
          </dd>
        </div>
        {approver === "" ? null : (
          <div className="fact">
            <dt>Answered by</dt>
            <dd>{approver}</dd>
          </div>
        )}
      </dl>
      {writable && token.status === "pending" && token.event === null ? (
        <div className="row token-actions">
          <button
            type="button"
            className="button"
            disabled={answer.isPending}
            aria-label={`Approve ${title}`}
            onClick={() => answer.mutate({ executionId, name: token.name, decision: "approve" })}
          >
            Approve
          </button>
          <button
            type="button"
            className="button danger"
            disabled={answer.isPending}
            aria-label={`Reject ${title}`}
            onClick={() => answer.mutate({ executionId, name: token.name, decision: "reject" })}
          >
            Reject
          </button>
        </div>
      ) : null}
      <ErrorNotice error={answer.error} />
    </article>
  );
}
