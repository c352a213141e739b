import { type PaginationInput, type Resource, resourceKinds } from "@weft/contract";
import { compareResources } from "../../resources/deployed-resources.ts";
import { type CursorCodec, opaqueCursor, openCursor, type PageEnvelope, pageOfSortedList } from "../pagination.ts";

type ResourceKey = Pick<Resource, "kind" | "name">;

/** A resource's place in the list: its kind and name, which stay valid across a redeploy that keeps it. */
const resourceCursor: CursorCodec<ResourceKey> = {
  encode: (resource) => opaqueCursor({ kind: resource.kind, name: resource.name }),
  decode: (cursor) => {
    const decoded = openCursor(cursor);
    const kind = resourceKinds.find((known) => known === decoded?.kind);
    const name = decoded?.name;
    return kind === undefined || typeof name !== "string" ? undefined : { kind, name };
  },
};

/**
 * One page of an already sorted resource list. A deployment holds at most a few hundred
 * definitions, so the page is cut from the whole list, with the same keyset rules as a table.
 */
export function pageOfResources(
  all: Resource[],
  pagination: PaginationInput | undefined,
): Promise<PageEnvelope<Resource>> {
  return pageOfSortedList(
    all,
    { compare: compareResources, keyOf: (resource) => resource, cursor: resourceCursor },
    pagination,
  );
}
