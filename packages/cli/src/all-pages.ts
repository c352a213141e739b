/** A page of a standard list: its results and where the next page starts. */
interface ConnectionPage<T> {
  results: T[];
  pagination: { hasNextPage: boolean; endCursor?: string | undefined };
}

/** Every result of a standard list, asking `page` for each page after the cursor it is given. */
export async function allPages<T>(page: (after: string | undefined) => Promise<ConnectionPage<T>>): Promise<T[]> {
  const results: T[] = [];
  let after: string | undefined;
  for (;;) {
    const current = await page(after);
    results.push(...current.results);
    const { hasNextPage, endCursor } = current.pagination;
    if (!hasNextPage || endCursor === undefined) return results;
    after = endCursor;
  }
}
