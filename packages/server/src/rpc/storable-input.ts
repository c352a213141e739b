import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";
import { badRequest } from "./rpc-errors.ts";

/**
 * Refuses, before the contract's schemas see it, any RPC input that is nested too deep, is not
 * JSON (oRPC's RPC wire can decode BigInt, Date, Map … into it) or holds a string PostgreSQL cannot
 * store. One check for every procedure: zod walks input recursively, so a 20 000-level body must be
 * turned away before validation, and a NUL in any string would otherwise reach the database as a 500.
 */
export async function refuseUnstorableInput<T>({ input, next }: { input: unknown; next: () => Promise<T> }) {
  const check = checkStorableJson(input);
  if (!check.ok) {
    throw badRequest("Input validation failed", [{ path: check.path, message: describeUnstorable(check) }]);
  }
  return next();
}
