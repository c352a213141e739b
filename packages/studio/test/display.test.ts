// @vitest-environment happy-dom
import { cleanup, render, screen } from "@testing-library/react";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { JsonView } from "../src/components/json-view.tsx";
import { PageTitle } from "../src/components/page-title.tsx";
import { StatusBadge } from "../src/components/status-badge.tsx";
import { formatDuration, TimeText } from "../src/components/time-text.tsx";

afterEach(cleanup);

describe("PageTitle", () => {
  it("is the page's heading and the document's title", () => {
    render(h(PageTitle, { title: "Agents" }, h("p", null, "The agents acting for you.")));
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Agents");
    expect(document.title).toBe("Agents · Weft Studio");
    expect(screen.getByText("The agents acting for you.")).toBeDefined();
  });
});

describe("TimeText", () => {
  it("keeps the exact instant in the markup", () => {
    const { container } = render(h(TimeText, { at: "2026-11-28T10:00:00.000Z" }));
    expect(container.querySelector("time")?.getAttribute("dateTime")).toBe("2026-11-28T10:00:00.000Z");
  });

  it("shows a dash for no instant", () => {
    const { container } = render(h(TimeText, { at: null }));
    expect(container.textContent).toBe("—");
    expect(container.querySelector("time")).toBeNull();
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0 ms"],
    [999.4, "999 ms"],
    [1_000, "1.00 s"],
    [9_994, "9.99 s"],
    [10_000, "10.0 s"],
    [59_949, "59.9 s"],
    [60_000, "1 min 0 s"],
    [125_400, "2 min 5 s"],
  ])("%d ms reads %s", (milliseconds, text) => {
    expect(formatDuration(milliseconds)).toBe(text);
  });
});

describe("StatusBadge", () => {
  it("carries its status as text and as the class that colours it", () => {
    render(h(StatusBadge, { status: "failed" }));
    expect(screen.getByText("failed").className).toBe("badge status-failed");
  });
});

describe("JsonView", () => {
  it("indents a value in a region a keyboard can scroll", () => {
    render(h(JsonView, { value: { greeting: "Hello" }, label: "Output" }));
    const region = screen.getByRole("region", { name: "Output" });
    expect(region.getAttribute("tabindex")).toBe("0");
    expect(region.textContent).toBe('{\n  "greeting": "Hello"\n}');
  });

  it("shows a dash for no value", () => {
    render(h(JsonView, { value: undefined, label: "Output" }));
    expect(screen.getByRole("region", { name: "Output" }).textContent).toBe("—");
  });
});
