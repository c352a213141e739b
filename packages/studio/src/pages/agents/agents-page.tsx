import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Agent } from "@weft/contract";
import { type ReactNode, useState } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { canManage, useWorkspace } from "../../components/workspace.tsx";

/**
 * The agents acting for the person (every member's, for an owner or admin of the workspace), each
 * revocable; Studio's own session is one of them.
 */
export function AgentsPage(): ReactNode {
  const { workspace } = useWorkspace();
  const manager = canManage(workspace.role);
  const queryClient = useQueryClient();
  const agents = useQuery(
    weftQuery.agents.list.queryOptions({
      input: { status: "active", pagination: { first: 100 }, ...(manager ? { workspaceId: workspace.id } : {}) },
    }),
  );
  const refresh = (): Promise<void> => queryClient.invalidateQueries({ queryKey: weftQuery.agents.list.key() });
  const revoke = useMutation(weftQuery.agents.revoke.mutationOptions({ onSuccess: refresh }));
  const revokeAll = useMutation(weftQuery.agents.revokeAll.mutationOptions({ onSuccess: refresh }));
  const [confirming, setConfirming] = useState(false);
  // The agent whose Revoke was pressed once: a second, explicit button revokes it.
  const [confirmingAgent, setConfirmingAgent] = useState<string | null>(null);
  return (
    <>
      <PageTitle title="Agents">
        <p className="muted">
          {manager ? `Every member's agents in ${workspace.name}.` : "The agents acting for you."} A revoked agent's
          credential is refused from its very next request.
        </p>
      </PageTitle>
      <ErrorNotice error={revoke.error} />
      <ErrorNotice error={revokeAll.error} />
      {revokeAll.data === undefined ? null : (
        <p role="status" className="notice">
          Revoked {revokeAll.data.revoked} credentials.
        </p>
      )}
      <QueryTable
        query={agents}
        loading="agents"
        empty={
          <>
            No active agents: sign one in with <code>weft login</code>, or connect an MCP client.
          </>
        }
        label="Agents"
        rows={agents.data?.results ?? []}
        rowKey={(agent) => agent.id}
        columns={[
          {
            name: "Agent",
            cell: (agent) => (
              <>
                {agentName(agent)} <span className="muted">({agent.type})</span>
                {agent.federation === null ? null : (
                  <span className="muted">
                    {" "}
                    · policy <code>{agent.federation.policyId}</code>
                  </span>
                )}
              </>
            ),
          },
          { name: "For", cell: (agent) => agent.email },
          { name: "Scopes", cell: (agent) => agent.scopes.join(" ") },
          { name: "Last used", cell: (agent) => <TimeText at={agent.lastUsedAt} /> },
          { name: "Expires", cell: (agent) => <TimeText at={agent.expiresAt} /> },
          {
            name: "Actions",
            nameHidden: true,
            cell: (agent) =>
              confirmingAgent === agent.id ? (
                <div className="row">
                  <button
                    type="button"
                    className="button danger small"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate({ agentId: agent.id }, { onSettled: () => setConfirmingAgent(null) })}
                    aria-label={`Yes, revoke ${agentName(agent)} for ${agent.email}`}
                  >
                    Yes, revoke
                  </button>
                  <button
                    type="button"
                    className="button secondary small"
                    onClick={() => setConfirmingAgent(null)}
                    aria-label={`Keep ${agentName(agent)} for ${agent.email}`}
                  >
                    Keep
                  </button>
                </div>
              ) : (
                <button
                  type="button"
                  className="button danger small"
                  disabled={revoke.isPending}
                  onClick={() => setConfirmingAgent(agent.id)}
                  aria-label={`Revoke ${agentName(agent)} for ${agent.email}…`}
                >
                  Revoke…
                </button>
              ),
          },
        ]}
      />
      {manager && (agents.data?.results.length ?? 0) > 0 ? (
        <section className="card danger-zone" aria-labelledby="revoke-all-heading">
          <h2 id="revoke-all-heading">Revoke every agent</h2>
          <p>Every member of {workspace.name}, you included, will have to sign their agents in again.</p>
          {confirming ? (
            <div className="row">
              <button
                type="button"
                className="button danger"
                disabled={revokeAll.isPending}
                onClick={() =>
                  revokeAll.mutate({ workspaceId: workspace.id }, { onSettled: () => setConfirming(false) })
                }
              >
                Yes, revoke them all
              </button>
              <button type="button" className="button secondary" onClick={() => setConfirming(false)}>
                Keep them
              </button>
            </div>
          ) : (
            <button type="button" className="button danger" onClick={() => setConfirming(true)}>
              Revoke all…
            </button>
          )}
        </section>
      ) : null}
    </>
  );
}

/** What names an agent: its client, else its User-Agent, else for a federated one the subject its token vouched for. */
function agentName(agent: Agent): string {
  return (
    agent.agent.clientId ??
    agent.agent.userAgent ??
    (agent.federation === null ? "unnamed agent" : `subject ${agent.federation.subject}`)
  );
}
