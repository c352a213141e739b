// @vitest-environment happy-dom
import { cleanup, render, screen } from "@testing-library/react";
import { createStudioClient } from "@weft/client";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorNotice } from "../src/components/error-notice.tsx";
import { EmptyState, QueryState } from "../src/components/query-state.tsx";

afterEach(cleanup);

/** A refusal as the client decodes it from an answer, with the request id the answer carried. */
function refusal(status: number, message: string, requestId: string): Promise<unknown> {
  const client = createStudioClient({
    baseUrl: "http://studio.test",
    fetch: async () =>
      new Response(JSON.stringify({ error: "refused", message }), {
        status,
        headers: { "content-type": "application/json", "x-request-id": requestId },
      }),
  });
  return client.session.get().then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => error,
  );
}

const list = (names: string[]) => h("ul", null, ...names.map((name) => h("li", { key: name }, name)));

function renderState(query: { data: string[] | undefined; error: unknown }) {
  return render(
    h(QueryState<string[]>, {
      query,
      loading: "agents",
      isEmpty: (data) => data.length === 0,
      empty: "No agents: sign one in with weft login.",
      // biome-ignore lint/correctness/noChildrenProp: a render function, which createElement's children may not be.
      children: list,
    }),
  );
}

describe("QueryState", () => {
  it("says what is loading until the first answer, as a status", () => {
    renderState({ data: undefined, error: null });
    expect(screen.getByRole("status").textContent).toBe("Loading agents…");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows the error instead of the loading line when the first answer failed", async () => {
    renderState({ data: undefined, error: await refusal(500, "The server answered 500.", "req_1") });
    expect(screen.getByRole("alert").textContent).toContain("The server answered 500.");
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByRole("list")).toBeNull();
  });

  it("keeps the last answer under the error of a refresh that failed", () => {
    renderState({ data: ["ada"], error: new Error("Failed to fetch") });
    expect(screen.getByRole("alert").textContent).toContain("Failed to fetch");
    expect(screen.getByRole("listitem").textContent).toBe("ada");
  });

  it("says what to do next when the answer is empty", () => {
    const { container } = renderState({ data: [], error: null });
    expect(container.querySelector(".empty-state")?.textContent).toBe("No agents: sign one in with weft login.");
    expect(screen.queryByRole("list")).toBeNull();
  });

  it("shows the answer when it holds something", () => {
    const { container } = renderState({ data: ["ada", "grace"], error: null });
    expect(screen.getAllByRole("listitem").map((item) => item.textContent)).toEqual(["ada", "grace"]);
    expect(container.querySelector(".empty-state")).toBeNull();
  });

  it("never counts an answer empty without isEmpty", () => {
    render(
      h(QueryState<string[]>, {
        query: { data: [], error: null },
        loading: "members",
        // biome-ignore lint/correctness/noChildrenProp: a render function, which createElement's children may not be.
        children: list,
      }),
    );
    expect(screen.getByRole("list").children).toHaveLength(0);
  });
});

describe("EmptyState", () => {
  it("holds what it is given", () => {
    const { container } = render(h(EmptyState, null, "No deployments yet: run ", h("code", null, "weft deploy")));
    expect(container.querySelector(".empty-state code")?.textContent).toBe("weft deploy");
  });
});

describe("ErrorNotice", () => {
  it("renders nothing for no error", () => {
    const { container } = render(h(ErrorNotice, { error: null }));
    expect(container.innerHTML).toBe("");
  });

  it("gives the message and the request id to quote", async () => {
    render(h(ErrorNotice, { error: await refusal(429, "Too many requests; retry in 30 s.", "req_42") }));
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Too many requests; retry in 30 s.");
    expect(alert.querySelector("code")?.textContent).toBe("req_42");
  });

  it("names no request id when none came back", () => {
    render(h(ErrorNotice, { error: new Error("Failed to fetch") }));
    expect(screen.getByRole("alert").textContent).toBe("Failed to fetch");
  });

  it("speaks plainly of a thrown value that is not an error", () => {
    render(h(ErrorNotice, { error: "boom" }));
    expect(screen.getByRole("alert").textContent).toBe("Something went wrong.");
  });
});
