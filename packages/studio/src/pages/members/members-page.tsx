import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Member, WorkspaceRole } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryState } from "../../components/query-state.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";
import { canManage, useWorkspace } from "../../components/workspace.tsx";

const roles: WorkspaceRole[] = ["viewer", "member", "admin", "owner"];

/**
 * A workspace's members, and for its owners and admins, each member's role and removal, its
 * invitations and the invite form; and for everyone, a new team workspace.
 */
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
          {
            name: "Role",
            cell: (member) =>
              manager && !workspace.personal ? <RoleChange workspaceId={workspace.id} member={member} /> : member.role,
          },
          { name: "Joined", cell: (member) => <TimeText at={member.joinedAt} /> },
          ...(manager && !workspace.personal
            ? [
                {
                  name: "Remove",
                  cell: (member: Member) => <RemoveMember workspaceId={workspace.id} member={member} />,
                },
              ]
            : []),
        ]}
      />
      {manager ? <Invitations workspaceId={workspace.id} personal={workspace.personal} /> : null}
      <NewTeamWorkspace />
    </>
  );
}

/** A member's role, changed as soon as another is chosen; the server's refusal (the last owner) shows beside it. */
function RoleChange({ workspaceId, member }: { workspaceId: string; member: Member }): ReactNode {
  const queryClient = useQueryClient();
  const update = useMutation(
    weftQuery.access.updateRole.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: weftQuery.access.listMembers.key() }),
    }),
  );
  return (
    <div className="stack">
      <select
        aria-label={`Role of ${member.email}`}
        value={member.role}
        disabled={update.isPending}
        onChange={(event) =>
          update.mutate({ workspaceId, accountId: member.accountId, role: event.target.value as WorkspaceRole })
        }
      >
        {roles.map((candidate) => (
          <option key={candidate} value={candidate}>
            {candidate}
          </option>
        ))}
      </select>
      <ErrorNotice error={update.error} />
    </div>
  );
}

/** Remove, after a confirmation: the member loses the workspace at their next call. */
function RemoveMember({ workspaceId, member }: { workspaceId: string; member: Member }): ReactNode {
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const remove = useMutation(
    weftQuery.access.removeMember.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: weftQuery.access.listMembers.key() }),
    }),
  );
  return (
    <div className="row">
      {confirming ? (
        <>
          <button
            type="button"
            className="button danger small"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ workspaceId, accountId: member.accountId })}
          >
            Yes, remove {member.email}
          </button>
          <button type="button" className="button secondary small" onClick={() => setConfirming(false)}>
            Keep {member.email}
          </button>
        </>
      ) : (
        <button type="button" className="button secondary small" onClick={() => setConfirming(true)}>
          Remove {member.email}…
        </button>
      )}
      <ErrorNotice error={remove.error} />
    </div>
  );
}

/** A team workspace of one's own, with oneself as owner; the picker switches to it. */
function NewTeamWorkspace(): ReactNode {
  const { choose } = useWorkspace();
  const [name, setName] = useState("");
  const nameId = useId();
  const queryClient = useQueryClient();
  const create = useMutation(
    weftQuery.access.createWorkspace.mutationOptions({
      onSuccess: async (created) => {
        setName("");
        await queryClient.invalidateQueries({ queryKey: weftQuery.access.listWorkspaces.key() });
        choose(created.id);
      },
    }),
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    create.mutate({ name: name.trim() });
  };
  return (
    <section className="card stack" aria-labelledby="new-team-heading">
      <h2 id="new-team-heading">New team workspace</h2>
      <p className="muted">A team workspace has members you invite, each with a role; you are its owner.</p>
      <form className="filters" onSubmit={submit} aria-label="Create a team workspace">
        <div>
          <label htmlFor={nameId}>Team name</label>
          <input id={nameId} required maxLength={64} value={name} onChange={(event) => setName(event.target.value)} />
        </div>
        <div className="form-end">
          <button type="submit" className="button" disabled={create.isPending}>
            Create team workspace
          </button>
        </div>
        <ErrorNotice error={create.error} />
      </form>
    </section>
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
        <p className="muted">
          A personal workspace has no other members: create a team workspace below to invite people.
        </p>
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
