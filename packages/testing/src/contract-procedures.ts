import { isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";

/** Every procedure of the contract as `namespace.verb` with its input schema, for tests that walk the whole API. */
export function contractProcedures(router: object = contract, prefix: string[] = []): [string, unknown][] {
  return Object.entries(router).flatMap(([key, value]): [string, unknown][] => {
    if (isContractProcedure(value)) return [[[...prefix, key].join("."), value["~orpc"].inputSchema]];
    return typeof value === "object" && value !== null ? contractProcedures(value, [...prefix, key]) : [];
  });
}
