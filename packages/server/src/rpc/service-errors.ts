import { ConflictError, InvalidRequestError, NotFoundError } from "../shared/service-errors.ts";
import { badRequest, notFound } from "./rpc-errors.ts";

/** Issue paths of services are dotted strings; RPC issues carry them as arrays. */
function toPath(path: string): (string | number)[] {
  return path === "" ? [] : path.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/**
 * Runs a service call, mapping its domain errors to the RPC catalogue: InvalidRequestError and
 * ConflictError to BAD_REQUEST (with issues under `prefix`), NotFoundError to NOT_FOUND.
 */
export async function mapServiceErrors<T>(call: () => Promise<T>, options: { prefix?: string[] } = {}): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof InvalidRequestError) {
      throw badRequest(
        error.message,
        error.issues.map((issue) => ({
          path: [...(options.prefix ?? []), ...toPath(issue.path)],
          message: issue.message,
        })),
      );
    }
    if (error instanceof ConflictError) throw badRequest(error.message, []);
    if (error instanceof NotFoundError) throw notFound(error.message);
    throw error;
  }
}
