import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type ExecutionState,
  finalStates,
  initialState,
  transitionNames,
  transitions,
} from "../src/engine/execution-state/execution-states.ts";

const architecture = readFileSync(new URL("../../../docs/architecture.md", import.meta.url), "utf8");

/** The lines of the state diagram that docs/architecture.md keeps between its two markers. */
function diagramLines(): string[] {
  const diagram = /<!-- execution-states:begin -->([\s\S]*?)<!-- execution-states:end -->/.exec(architecture)?.[1];
  if (diagram === undefined) throw new Error("docs/architecture.md has no execution-states markers");
  return diagram
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.includes("-->"));
}

describe("the state diagram of docs/architecture.md", () => {
  it("draws exactly the transitions of the table, each from each of its states", () => {
    const drawn = diagramLines()
      .filter((line) => !line.includes("[*]"))
      .sort();
    const table = transitionNames
      .flatMap((name) =>
        (transitions[name].from as readonly ExecutionState[]).map(
          (from) => `${from} --> ${transitions[name].to}: ${name}`,
        ),
      )
      .sort();
    expect(drawn).toEqual(table);
  });

  it("starts at the initial state and ends at the final ones", () => {
    const ends = diagramLines().filter((line) => line.includes("[*]"));
    expect(ends.sort()).toEqual([`[*] --> ${initialState}`, ...finalStates.map((state) => `${state} --> [*]`)].sort());
  });
});
