import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { WorkspaceRole } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { canManage, useWorkspace } from "../../components/workspace.tsx";

const roles: WorkspaceRole[] = ["viewer", "member", "admin", "owner"];

/** A workspace's members, and for its owners and admins, its invitations and the invite form. */
export function MembersPage(): ReactNode {
  const { workspace } = useWorkspace();
  const manager = canManage(workspace.role);
  const members = useQuery(
    weftQuery.access.listMembers.queryOptions({ input: { workspaceId: workspace.id, pagination: { first: 100 } } }),
  );
  return (
    <>
      <PageTitle title="Members" />
      <QueryTable
        query={members}
        loading="members"
        label="Members"
        rows={members.data?.results ?? []}
        rowKey={(member) => member.accountId}
        columns={[
          { name: "Email", cell: (member) => member.email },
          { name: "Role", cell: (member) => member.role },
          { name: "Joined", cell: (member) => <TimeText at={member.joinedAt} /> },
        ]}
      />
      {manager ? <Invitations workspaceId={workspace.id} personal={workspace.personal} /> : null}
    </>
  );
}

function Invitations({ workspaceId, personal }: { workspaceId: string; personal: boolean }): ReactNode {
  const queryClient = useQueryClient();
  const invitations = useQuery(
    weftQuery.access.listInvitations.queryOptions({ input: { workspaceId, pagination: { first: 100 } } }),
  );
  const refresh = (): Promise<void> =>
    queryClient.invalidateQueries({ queryKey: weftQuery.access.listInvitations.key() });
  const revoke = useMutation(weftQuery.access.revokeInvitation.mutationOptions({ onSuccess: refresh }));
  const pending = (invitations.data?.results ?? []).filter((invitation) => invitation.status === "pending");
  return (
    <section className="card stack" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {personal ? (
        <p className="muted">A personal workspace has no other members: create a team workspace to invite people.</p>
      ) : (
        <InviteForm workspaceId={workspaceId} onInvited={refresh} />
      )}
      <ErrorNotice error={revoke.error} />
      <QueryState
        query={invitations}
        loading="invitations"
        isEmpty={() => pending.length === 0}
        empty="No pending invitations."
      >
        {() => (
          <ul className="plain-list">
            {pending.map((invitation) => (
              <li key={invitation.id} className="row">
                <span>
                  {invitation.email} <span className="muted">as {invitation.role}, until</span>{" "}
                  <TimeText at={invitation.expiresAt} />
                </span>
                <button
                  type="button"
                  className="button secondary small"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate({ invitationId: invitation.id })}
                  aria-label={`Cancel invitation of ${invitation.email}`}
                >
                  Cancel invitation
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

function InviteForm({ workspaceId, onInvited }: { workspaceId: string; onInvited: () => Promise<void> }): ReactNode {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<WorkspaceRole>("member");
  const emailId = useId();
  const roleId = useId();
  const invite = useMutation(
    weftQuery.access.invite.mutationOptions({
      onSuccess: async () => {
        setEmail("");
        await onInvited();
      },
    }),
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    invite.mutate({ workspaceId, email: email.trim(), role });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Invite someone">
      <div>
        <label htmlFor={emailId}>Email to invite</label>
        <input id={emailId} type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
      </div>
      <div>
        <label htmlFor={roleId}>Role</label>
        <select id={roleId} value={role} onChange={(event) => setRole(event.target.value as WorkspaceRole)}>
          {roles.map((candidate) => (
            <option key={candidate} value={candidate}>
              {candidate}
            </option>
          ))}
        </select>
      </div>
      <div className="form-end">
        <button type="submit" className="button" disabled={invite.isPending}>
          Invite
        </button>
      </div>
      <ErrorNotice error={invite.error} />
    </form>
  );
}
