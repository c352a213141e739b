// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { createElement as h } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CopyableUrl } from "../src/components/copy-button.tsx";

afterEach(cleanup);

const url = "https://weft.example/f/greeting";

describe("CopyableUrl", () => {
  it("shows the URL in full and copies it", async () => {
    render(h(CopyableUrl, { label: "the page of form greeting", url }));
    expect(screen.getByText(url).tagName).toBe("CODE");
    fireEvent.click(screen.getByRole("button", { name: "Copy the page of form greeting" }));
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("Copied"));
    expect(await navigator.clipboard.readText()).toBe(url);
  });

  it("says to select the text when the browser refuses the clipboard", async () => {
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new DOMException("denied", "NotAllowedError"));
    render(h(CopyableUrl, { label: "the URL of webhook orders", url }));
    fireEvent.click(screen.getByRole("button", { name: "Copy the URL of webhook orders" }));
    await waitFor(() => expect(screen.getByRole("status").textContent).toBe("Copy failed: select the text instead"));
  });
});
