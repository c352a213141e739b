import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ConfigVariable, configVariables } from "../src/config/config-variables.ts";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

/** The rows of the README's configuration table: variable name → text of the Default column. */
function readmeConfigurationTable(): Map<string, string> {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Configuration\n"));
  if (section === undefined) throw new Error("README.md has no ## Configuration section");
  const rows = new Map<string, string>();
  for (const line of section.split("\n")) {
    const name = /^\|\s*`([A-Z0-9_]+)`\s*\|/.exec(line)?.[1];
    if (name === undefined) continue;
    const defaultCell = line.split("|")[2]?.trim() ?? "";
    if (rows.has(name)) throw new Error(`README.md lists ${name} twice`);
    rows.set(name, defaultCell);
  }
  return rows;
}

/** How the README's Default column shows a variable of the code table. */
function documentedDefault(variable: ConfigVariable<unknown>): string {
  return "default" in variable ? `\`${variable.default}\`` : variable.unset;
}

describe("the configuration table", () => {
  it("is what the README's configuration table lists: the same variables, with the same defaults", () => {
    const documented = readmeConfigurationTable();
    expect([...documented.keys()].sort()).toEqual(Object.keys(configVariables).sort());
    for (const [name, variable] of Object.entries(configVariables)) {
      expect(documented.get(name), name).toBe(documentedDefault(variable));
    }
  });

  it("gives every variable an example that its own schema accepts", () => {
    for (const [name, variable] of Object.entries(configVariables)) {
      const schema = variable.schema({ name, example: variable.example, cwd: "/srv/weft" });
      expect(schema.safeParse(variable.example).success, `${name}=${variable.example}`).toBe(true);
    }
  });
});
