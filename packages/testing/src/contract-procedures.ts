import { isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";

/** Every procedure of the contract as `namespace.verb` with its input schema, for tests that walk the whole API. */
export function contractProcedureInputs(router: object = contract, prefix: string[] = []): [string, unknown][] {
  return Object.entries(router).flatMap(([key, value]): [string, unknown][] => {
    if (isContractProcedure(value)) return [[[...prefix, key].join("."), value["~orpc"].inputSchema]];
    return typeof value === "object" && value !== null ? contractProcedureInputs(value, [...prefix, key]) : [];
  });
}

/** The name of every procedure of the contract, e.g. `projects.list`. */
export function contractProcedures(): string[] {
  return contractProcedureInputs().map(([name]) => name);
}
