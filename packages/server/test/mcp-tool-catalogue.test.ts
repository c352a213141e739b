import { contractCalls, contractProcedures } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { exposedProcedures, unexposedProcedures } from "../src/mcp/tool-catalogue.ts";

describe("the MCP tool catalogue", () => {
  it.each(contractProcedures())("decides %s: a tool, or deliberately not one", (procedure) => {
    const exposed = procedure in exposedProcedures;
    const unexposed = procedure in unexposedProcedures;
    expect(exposed !== unexposed, `${procedure} must be in exactly one of the two tables of tool-catalogue.ts`).toBe(
      true,
    );
  });

  it("names no procedure the contract lacks", () => {
    const procedures = new Set(contractProcedures());
    const named = [...Object.keys(exposedProcedures), ...Object.keys(unexposedProcedures)];
    expect(named.filter((name) => !procedures.has(name))).toEqual([]);
  });

  it.each(Object.entries(exposedProcedures))("gives %s the scope its procedure requires", (procedure, rule) => {
    expect(rule.scope).toBe(contractCalls[procedure]?.scope);
  });

  it("exposes nothing administrative", () => {
    const administrative = Object.keys(exposedProcedures).filter((name) =>
      ["access.", "integrations."].some((namespace) => name.startsWith(namespace)),
    );
    expect(administrative).toEqual([]);
  });
});
