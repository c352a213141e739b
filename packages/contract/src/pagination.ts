import * as z from "zod";

/** Page size of a list when the caller names none. */
export const defaultPageSize = 20;

/**
 * The `pagination` object of a list input: `first`/`after` page forward, `last`/
 * `before` page backward. Cursors are opaque. Each list states its own largest page.
 */
export function paginationInput(options: { maxPageSize: number }) {
  const size = z.int().min(1).max(options.maxPageSize);
  return z
    .object({
      first: size.optional(),
      after: z.string().min(1).optional(),
      last: size.optional(),
      before: z.string().min(1).optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      const forward = value.first !== undefined || value.after !== undefined;
      const backward = value.last !== undefined || value.before !== undefined;
      if (forward && backward) {
        ctx.addIssue({
          code: "custom",
          path: value.last !== undefined ? ["last"] : ["before"],
          message: "Page forward with first/after or backward with last/before, not both.",
        });
      }
    });
}

export type PaginationInput = z.infer<ReturnType<typeof paginationInput>>;

/** The field a list's input spreads in: its optional `pagination`, of at most `maxPageSize` a page. */
export function connectionPageInput(options: { maxPageSize: number }) {
  return { pagination: paginationInput(options).optional() };
}

export const pageInfoSchema = z.object({
  hasNextPage: z.boolean(),
  hasPreviousPage: z.boolean(),
  /** Cursor of the first result; left out when the page is empty. */
  startCursor: z.string().optional(),
  /** Cursor of the last result; left out when the page is empty. */
  endCursor: z.string().optional(),
});
export type PageInfo = z.infer<typeof pageInfoSchema>;

/** The standard list result: `{ pagination, results, totalCount }`. */
export function pageOf<T extends z.ZodType>(result: T) {
  return z.object({
    pagination: pageInfoSchema,
    results: z.array(result),
    totalCount: z.int().min(0),
  });
}

/**
 * The standard list result of a list that grows without bound (a project's executions): its
 * `totalCount` counts no further than `countCap`, and `totalCountIsLowerBound` says when more match.
 */
export function cappedCountPageOf<T extends z.ZodType>(result: T, countCap: number) {
  return pageOf(result).extend({
    totalCount: z.int().min(0).max(countCap).describe(`The number of matching results, counted up to ${countCap}.`),
    totalCountIsLowerBound: z
      .boolean()
      .describe(`True when more than ${countCap} results match: totalCount is then ${countCap}, and paging goes on.`),
  });
}

/**
 * The paging fields of a newest-first list (traces, the audit log): `limit` rows after `cursor`,
 * the `nextCursor` of the previous page. Spread them into the list's input object.
 */
export function timestampPageInput(options: { maxPageSize: number }) {
  return {
    limit: z.int().min(1).max(options.maxPageSize).default(defaultPageSize),
    /** `nextCursor` of the previous page. */
    cursor: z.string().min(1).optional(),
  };
}

/** The newest-first list result: `{ data, nextCursor }`, `nextCursor` left out on the last page. */
export function timestampPageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().optional() });
}
