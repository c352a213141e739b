// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import type { WaitTokenView } from "@weft/contract";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { WaitTokenCard } from "../src/components/wait-token-card.tsx";

afterEach(cleanup);

const pending: WaitTokenView = {
  name: "approval",
  status: "pending",
  createdAt: "2026-11-29T09:00:00.000Z",
  expiresAt: "2026-12-02T09:00:00.000Z",
  finishedAt: null,
  title: "Refund <img src=x onerror=alert(1)>",
  description: "Line one\nline two",
  fields: [
    { label: "Amount", value: "120 EUR" },
    { label: "Link", value: "javascript:alert(1)" },
  ],
  approvers: "members",
  event: null,
  completedBy: null,
};

function show(token: WaitTokenView, writable: boolean) {
  return render(
    h(
      QueryClientProvider,
      { client: new QueryClient() },
      h(WaitTokenCard, { executionId: "exe_01jz0000000000000000000000", token, writable }),
    ),
  );
}

describe("WaitTokenCard", () => {
  it("shows what the workflow asks as text, never as markup or a link", () => {
    const { container } = show(pending, true);
    expect(screen.getByRole("heading", { level: 3 }).textContent).toBe("Refund <img src=x onerror=alert(1)>");
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a")).toBeNull();
    expect(screen.getByText("javascript:alert(1)").tagName).toBe("DD");
    expect(screen.getByText("members of the workspace")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Approve Refund <img src=x onerror=alert(1)>" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Reject Refund <img src=x onerror=alert(1)>" })).toBeTruthy();
  });

  it("offers no answer to a viewer, nor once answered, and names who answered", () => {
    show(pending, false);
    expect(screen.queryAllByRole("button")).toEqual([]);
    cleanup();
    show(
      {
        ...pending,
        title: null,
        status: "completed",
        finishedAt: "2026-11-29T10:00:00.000Z",
        completedBy: { accountId: "acc_01", email: "ada@example.com" },
      },
      true,
    );
    expect(screen.getByRole("heading", { level: 3 }).textContent).toBe("approval");
    expect(screen.queryAllByRole("button")).toEqual([]);
    expect(screen.getByText("ada@example.com")).toBeTruthy();
    expect(screen.getByText("answered")).toBeTruthy();
  });

  it("shows a wait for an event with the event it waits for, and no answer, which only a send of it gives", () => {
    show({ ...pending, title: null, approvers: "anyone", event: "order.paid" }, true);
    expect(screen.getByText("order.paid")).toBeTruthy();
    expect(screen.queryByText("Who may answer")).toBeNull();
    expect(screen.queryAllByRole("button")).toEqual([]);
  });
});
