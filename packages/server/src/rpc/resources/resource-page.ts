import { defaultPageSize, type PageInfo, type PaginationInput, type Resource, resourceKinds } from "@weft/contract";
import { compareResources } from "../../resources/deployed-resources.ts";
import { badRequest } from "../rpc-errors.ts";

type ResourceKey = Pick<Resource, "kind" | "name">;

/** A resource's place in the list, opaque to clients like every cursor. */
function encodeResourceCursor(resource: ResourceKey): string {
  return Buffer.from(JSON.stringify({ kind: resource.kind, name: resource.name }), "utf8").toString("base64url");
}

function decodeResourceCursor(cursor: string): ResourceKey | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof decoded !== "object" || decoded === null) return undefined;
    const { kind, name } = decoded as Record<string, unknown>;
    if (typeof name !== "string" || !resourceKinds.some((known) => known === kind)) return undefined;
    return { kind: kind as Resource["kind"], name };
  } catch {
    return undefined;
  }
}

/**
 * One page of an already sorted resource list. A deployment holds at most a few hundred
 * definitions, so the page is cut from the whole list; the cursor names the definition a page
 * starts after (or ends before), which stays valid across a redeploy that keeps it.
 */
export function pageOfResources(
  all: Resource[],
  pagination: PaginationInput | undefined,
): { pagination: PageInfo; results: Resource[]; totalCount: number } {
  const backward = pagination?.last !== undefined || pagination?.before !== undefined;
  const cursor = backward ? pagination?.before : pagination?.after;
  const key = cursor === undefined ? undefined : decodeResourceCursor(cursor);
  if (cursor !== undefined && key === undefined) {
    throw badRequest("Input validation failed", [
      {
        path: ["pagination", backward ? "before" : "after"],
        message: "Not a cursor of this list; use startCursor or endCursor of a page.",
      },
    ]);
  }
  const size = (backward ? pagination?.last : pagination?.first) ?? defaultPageSize;
  let start: number;
  let end: number;
  if (backward) {
    end = key === undefined ? all.length : all.filter((resource) => compareResources(resource, key) < 0).length;
    start = Math.max(0, end - size);
  } else {
    start = key === undefined ? 0 : all.filter((resource) => compareResources(resource, key) <= 0).length;
    end = Math.min(all.length, start + size);
  }
  const results = all.slice(start, end);
  const first = results[0];
  const last = results[results.length - 1];
  return {
    pagination: {
      hasNextPage: end < all.length,
      hasPreviousPage: start > 0,
      startCursor: first === undefined ? null : encodeResourceCursor(first),
      endCursor: last === undefined ? null : encodeResourceCursor(last),
    },
    results,
    totalCount: all.length,
  };
}
