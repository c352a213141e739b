// @vitest-environment happy-dom
import { cleanup, render, screen, within } from "@testing-library/react";
import { createElement as h } from "react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { type Column, DataTable } from "../src/components/data-table.tsx";
import { type ExecutionSummary, ExecutionTable } from "../src/components/execution-table.tsx";

afterEach(cleanup);

interface Member {
  id: string;
  email: string;
}

const columns: Column<Member>[] = [
  { name: "Email", cell: (member) => member.email },
  {
    name: "Actions",
    nameHidden: true,
    className: "stack",
    cell: (member) => h("button", { type: "button" }, `Remove ${member.email}`),
  },
];

describe("DataTable", () => {
  it("is a scrolling region named for screen readers, focusable by keyboard", () => {
    render(h(DataTable<Member>, { label: "Members", columns, rows: [], rowKey: (member) => member.id }));
    const region = screen.getByRole("region", { name: "Members" });
    expect(region.getAttribute("tabindex")).toBe("0");
  });

  it("heads each column, a hidden heading read by screen readers only", () => {
    render(h(DataTable<Member>, { label: "Members", columns, rows: [], rowKey: (member) => member.id }));
    const headings = screen.getAllByRole("columnheader");
    expect(headings.map((heading) => heading.textContent)).toEqual(["Email", "Actions"]);
    expect(headings.every((heading) => heading.getAttribute("scope") === "col")).toBe(true);
    expect(headings[1]?.querySelector(".visually-hidden")?.textContent).toBe("Actions");
  });

  it("gives each row one cell per column, in order", () => {
    const rows = [
      { id: "1", email: "ada@example.com" },
      { id: "2", email: "grace@example.com" },
    ];
    render(h(DataTable<Member>, { label: "Members", columns, rows, rowKey: (member) => member.id }));
    const [, ...bodyRows] = screen.getAllByRole("row");
    expect(bodyRows.map((row) => within(row).getAllByRole("cell")[0]?.textContent)).toEqual([
      "ada@example.com",
      "grace@example.com",
    ]);
    expect(within(bodyRows[1] as HTMLElement).getByRole("button").textContent).toBe("Remove grace@example.com");
    expect(within(bodyRows[1] as HTMLElement).getAllByRole("cell")[1]?.className).toBe("stack");
  });

  it("has a caption only when given one", () => {
    const { container, rerender } = render(
      h(DataTable<Member>, { label: "Members", columns, rows: [], rowKey: (member) => member.id }),
    );
    expect(container.querySelector("caption")).toBeNull();
    rerender(
      h(DataTable<Member>, {
        label: "Members",
        caption: "Members of Acme",
        columns,
        rows: [],
        rowKey: (member) => member.id,
      }),
    );
    expect(screen.getByRole("table", { name: "Members of Acme" })).toBeDefined();
  });
});

const execution = (overrides: Partial<ExecutionSummary>): ExecutionSummary => ({
  id: "exe_01jdz8j3v1k2m3n4p5q6r7s8t9",
  projectId: "prj_01jdz8j3v1k2m3n4p5q6r7s8t9",
  deploymentId: "dep_01jdz8j3v1k2m3n4p5q6r7s8t9",
  workflow: "greet",
  status: "succeeded",
  attempt: 1,
  trigger: { kind: "form", name: "greeting" },
  createdAt: "2026-11-28T10:00:00.000Z",
  startedAt: "2026-11-28T10:00:00.000Z",
  finishedAt: "2026-11-28T10:00:01.500Z",
  tags: [],
  ...overrides,
});

describe("ExecutionTable", () => {
  it("links each execution, with its status, trigger and duration", () => {
    render(h(MemoryRouter, null, h(ExecutionTable, { executions: [execution({})] })));
    const cells = screen.getAllByRole("cell").map((cell) => cell.textContent);
    expect(cells).toEqual(["greet q6r7s8t9", "succeeded", "form greeting", expect.any(String), "1.50 s"]);
    expect(screen.getByRole("link", { name: "greet" }).getAttribute("href")).toBe(
      "/executions/exe_01jdz8j3v1k2m3n4p5q6r7s8t9",
    );
    expect(screen.getByText("succeeded").className).toBe("badge status-succeeded");
  });

  it("gives no duration before the end, and a trigger without a name its kind alone", () => {
    render(
      h(
        MemoryRouter,
        null,
        h(ExecutionTable, {
          executions: [execution({ status: "running", finishedAt: null, trigger: { kind: "api", name: null } })],
        }),
      ),
    );
    const cells = screen.getAllByRole("cell").map((cell) => cell.textContent);
    expect(cells[2]).toBe("api");
    expect(cells[4]).toBe("—");
  });

  it("lists a run's tags beside its workflow, and says an expired run never started, with no duration", () => {
    render(
      h(
        MemoryRouter,
        null,
        h(ExecutionTable, { executions: [execution({ status: "expired", tags: ["order-42", "team:eu"] })] }),
      ),
    );
    const tags = screen.getByRole("list", { name: "Tags of greet q6r7s8t9" });
    expect([...tags.querySelectorAll("li")].map((item) => item.textContent)).toEqual(["order-42", "team:eu"]);
    const cells = screen.getAllByRole("cell").map((cell) => cell.textContent);
    expect(cells[1]).toBe("expired (never started)");
    expect(cells[4]).toBe("—");
  });
});
