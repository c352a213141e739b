import { contractProcedureEntries, type ProcedureMeta, type ProcedureName } from "@weft/contract";

/** Every procedure of the contract as `namespace.verb` with its input schema, for tests that walk the whole API. */
export function contractProcedureInputs(): [ProcedureName, unknown][] {
  return contractProcedureEntries().map(({ name, procedure }) => [name, procedure["~orpc"].inputSchema]);
}

/** The name of every procedure of the contract, e.g. `projects.list`. */
export function contractProcedures(): ProcedureName[] {
  return contractProcedureEntries().map(({ name }) => name);
}

/** A procedure's metadata in the contract: its scope, whether it changes anything, whether MCP shows it. */
export function procedureMeta(name: ProcedureName): ProcedureMeta {
  const entry = contractProcedureEntries().find((each) => each.name === name);
  if (entry === undefined) throw new Error(`the contract has no procedure ${name}`);
  return entry.meta;
}
