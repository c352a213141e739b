import { isProcedure } from "@orpc/server";
import { allScopes } from "@weft/contract";
import { contractProcedures } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { router } from "../src/rpc/router.ts";

/** Every procedure the server serves, with the metadata its scope check reads at call time. */
const served = Object.entries(router).flatMap(([namespace, procedures]) =>
  Object.entries(procedures).map(([verb, procedure]) => {
    if (!isProcedure(procedure)) throw new Error(`${namespace}.${verb} is not a procedure`);
    return [`${namespace}.${verb}`, procedure["~orpc"].meta as Record<string, unknown>] as const;
  }),
);

describe("every procedure the server serves declares what its scope check needs", () => {
  it("serves exactly the procedures of the contract", () => {
    expect(served.map(([name]) => name).sort()).toEqual(contractProcedures().sort());
  });

  it.each(served)("%s names one scope, a write scope exactly when it changes something", (_name, meta) => {
    expect(allScopes).toContain(meta.scope);
    expect(typeof meta.mutates).toBe("boolean");
    expect(String(meta.scope).endsWith(":write")).toBe(meta.mutates);
  });
});
