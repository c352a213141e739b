import { type AnyProcedure, createProcedureClient, getRouter, isProcedure, ORPCError } from "@orpc/server";
import type { RpcInitialContext } from "../rpc/context.ts";
import { router } from "../rpc/router.ts";
import { procedureCallInterceptors } from "../rpc/rpc-handlers.ts";

export type ProcedureOutcome = { ok: true; output: unknown } | { ok: false; error: ORPCError<string, unknown> };

/**
 * Calls a procedure of the router in-process, exactly as `/rpc` would: the same authentication,
 * scope, role and project checks, audit events and error shaping; only the wire is skipped.
 */
export async function callProcedure(
  path: readonly string[],
  input: unknown,
  context: RpcInitialContext,
): Promise<ProcedureOutcome> {
  const procedure: unknown = getRouter(router, path);
  if (!isProcedure(procedure)) throw new Error(`no procedure at ${path.join(".")}`);
  const client = createProcedureClient(procedure as AnyProcedure, {
    context,
    path,
    interceptors: procedureCallInterceptors,
  });
  try {
    return { ok: true, output: await client(input) };
  } catch (error) {
    // The interceptors leave nothing but ORPCErrors: anything else became INTERNAL_SERVER_ERROR.
    if (error instanceof ORPCError) return { ok: false, error };
    throw error;
  }
}
