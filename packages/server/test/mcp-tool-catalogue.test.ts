import { contractProcedureEntries } from "@weft/contract";
import { describe, expect, it } from "vitest";
import { mcpTools, toolNameOf } from "../src/mcp/mcp-tools.ts";

const procedures = contractProcedureEntries();
const tools = [...mcpTools().values()];

describe("the MCP tool catalogue", () => {
  it.each(procedures.map(({ name, meta }) => [name, meta.mcp] as const))(
    "decides %s: a tool, or deliberately not one",
    (_name, mcp) => {
      expect(mcp.tool || mcp.reason.trim() !== "").toBe(true);
    },
  );

  it("is exactly the procedures whose metadata makes them tools, named namespace_verb", () => {
    const exposed = procedures.filter(({ meta }) => meta.mcp.tool).map(({ name }) => toolNameOf(name));
    expect(tools.map((tool) => tool.definition.name).sort()).toEqual(exposed.sort());
  });

  it.each(tools.map((tool) => [tool.procedure, tool] as const))(
    "shows %s as read-only exactly when it changes nothing",
    (_name, tool) => {
      expect(tool.definition.annotations?.readOnlyHint).toBe(!tool.meta.mutates);
    },
  );

  it("exposes nothing administrative", () => {
    const administrative = tools.filter(({ procedure }) =>
      ["access.", "integrations."].some((namespace) => procedure.startsWith(namespace)),
    );
    expect(administrative).toEqual([]);
  });
});
