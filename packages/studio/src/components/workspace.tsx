import { useQuery } from "@tanstack/react-query";
import type { Workspace } from "@weft/contract";
import { createContext, type ReactNode, useContext, useId, useState } from "react";
import { weftQuery } from "../api/weft-query.ts";
import { QueryState } from "./query-state.tsx";

interface WorkspaceChoice {
  workspace: Workspace;
  workspaces: Workspace[];
  choose: (workspaceId: string) => void;
}

const WorkspaceContext = createContext<WorkspaceChoice | null>(null);
const storageKey = "weft-studio-workspace";

/** The workspace the pages show, chosen in the top bar (the personal one at first) and kept across visits. */
export function useWorkspace(): WorkspaceChoice {
  const choice = useContext(WorkspaceContext);
  if (choice === null) throw new Error("useWorkspace is used outside WorkspaceProvider.");
  return choice;
}

/** The caller's role in a workspace, or undefined when the workspace is not theirs. */
export function useRoleIn(workspaceId: string | undefined): Workspace["role"] | undefined {
  return useWorkspace().workspaces.find((workspace) => workspace.id === workspaceId)?.role;
}

/** Whether a role may change things: a viewer only looks, and sees no write buttons. */
export function canWrite(role: Workspace["role"] | undefined): boolean {
  return role !== undefined && role !== "viewer";
}

export function canManage(role: Workspace["role"] | undefined): boolean {
  return role === "owner" || role === "admin";
}

export function WorkspaceProvider({ children }: { children: ReactNode }): ReactNode {
  const [chosenId, setChosenId] = useState(() => localStorage.getItem(storageKey));
  const query = useQuery(weftQuery.access.listWorkspaces.queryOptions({ input: { pagination: { first: 100 } } }));
  const choose = (workspaceId: string): void => {
    localStorage.setItem(storageKey, workspaceId);
    setChosenId(workspaceId);
  };
  return (
    <QueryState
      query={query}
      loading="your workspaces"
      isEmpty={(data) => data.results.length === 0}
      empty="You belong to no workspace yet."
    >
      {({ results: workspaces }) => {
        const workspace =
          workspaces.find((candidate) => candidate.id === chosenId) ??
          workspaces.find((candidate) => candidate.personal) ??
          workspaces[0];
        return workspace === undefined ? null : (
          <WorkspaceContext.Provider value={{ workspace, workspaces, choose }}>{children}</WorkspaceContext.Provider>
        );
      }}
    </QueryState>
  );
}

export function WorkspacePicker(): ReactNode {
  const { workspace, workspaces, choose } = useWorkspace();
  const id = useId();
  return (
    <div className="workspace-picker">
      <label htmlFor={id}>Workspace</label>
      <select id={id} value={workspace.id} onChange={(event) => choose(event.target.value)}>
        {workspaces.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.personal ? `${candidate.name} (personal)` : candidate.name} · {candidate.role}
          </option>
        ))}
      </select>
    </div>
  );
}
