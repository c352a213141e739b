// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { Workspace } from "@weft/contract";
import { createElement as h } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { weftQuery } from "../src/api/weft-query.ts";
import { canManage, canWrite, useWorkspace, WorkspacePicker, WorkspaceProvider } from "../src/components/workspace.tsx";

const workspace = (id: string, name: string, role: Workspace["role"], personal = false): Workspace => ({
  id,
  name,
  role,
  personal,
  createdAt: "2026-11-28T10:00:00.000Z",
});
const acme = workspace("wsp_acme", "Acme", "viewer");
const own = workspace("wsp_own", "Ada", "owner", true);

/** The workspaces answer already in the cache, as the provider's query keys it: no call goes out. */
function renderWithWorkspaces(workspaces: Workspace[]) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
  queryClient.setQueryData(weftQuery.access.listWorkspaces.queryKey({ input: { pagination: { first: 100 } } }), {
    results: workspaces,
    totalCount: workspaces.length,
    pagination: { hasNextPage: false, hasPreviousPage: false },
  });
  return render(
    h(QueryClientProvider, { client: queryClient }, h(WorkspaceProvider, null, h(WorkspacePicker), h(Shown))),
  );
}

function Shown() {
  const { workspace } = useWorkspace();
  return h("p", { "data-testid": "shown" }, `${workspace.name} as ${workspace.role}`);
}

beforeEach(() => localStorage.clear());
afterEach(cleanup);

describe("WorkspaceProvider", () => {
  it("starts on the personal workspace", () => {
    renderWithWorkspaces([acme, own]);
    expect(screen.getByTestId("shown").textContent).toBe("Ada as owner");
  });

  it("keeps the workspace chosen in the picker across visits", () => {
    renderWithWorkspaces([acme, own]);
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "wsp_acme" } });
    expect(screen.getByTestId("shown").textContent).toBe("Acme as viewer");
    cleanup();
    renderWithWorkspaces([acme, own]);
    expect(screen.getByTestId("shown").textContent).toBe("Acme as viewer");
  });

  it("falls back to the personal workspace when the remembered one is gone", () => {
    localStorage.setItem("weft-studio-workspace", "wsp_left");
    renderWithWorkspaces([acme, own]);
    expect(screen.getByTestId("shown").textContent).toBe("Ada as owner");
  });

  it("names each workspace with the caller's role in the picker", () => {
    renderWithWorkspaces([acme, own]);
    expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
      "Acme · viewer",
      "Ada (personal) · owner",
    ]);
  });

  it("says so when the caller belongs to no workspace", () => {
    const { container } = renderWithWorkspaces([]);
    expect(container.querySelector(".empty-state")?.textContent).toBe("You belong to no workspace yet.");
    expect(screen.queryByTestId("shown")).toBeNull();
  });
});

describe("roles", () => {
  it("a viewer only looks; members and above write; owners and admins manage", () => {
    expect(
      [undefined, "viewer", "member", "admin", "owner"].map((role) => canWrite(role as Workspace["role"])),
    ).toEqual([false, false, true, true, true]);
    expect(
      [undefined, "viewer", "member", "admin", "owner"].map((role) => canManage(role as Workspace["role"])),
    ).toEqual([false, false, false, true, true]);
  });
});
