import * as z from "zod";

/**
 * The JSON paths events are matched with: `$` then `.field` or `[index]` segments, such as
 * `$.data.orderId` or `$.data.items[0].sku`. No wildcards and no filters: a path names one value,
 * so that comparing it costs one lookup.
 */
const segmentPattern = /\.([A-Za-z_][A-Za-z0-9_-]{0,63})|\[(\d{1,6})\]/y;

export const jsonPathLimits = { length: 200, segments: 16 } as const;

/** The segments of `path` (field names and array indexes as strings, as PostgreSQL's `#>` reads them), or undefined. */
export function parseJsonPath(path: string): string[] | undefined {
  if (path.length > jsonPathLimits.length || !path.startsWith("$")) return undefined;
  const segments: string[] = [];
  segmentPattern.lastIndex = 1;
  while (segmentPattern.lastIndex < path.length) {
    const start = segmentPattern.lastIndex;
    const match = segmentPattern.exec(path);
    if (match === null || match.index !== start) return undefined;
    segments.push(match[1] ?? match[2] ?? "");
  }
  return segments.length > jsonPathLimits.segments ? undefined : segments;
}

/** The value at `segments` in `value`, or undefined where the path leads nowhere. */
export function valueAtJsonPath(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Whether `path` parses and names something below the root (the root itself is never a scalar). */
export function isJsonPath(path: string): boolean {
  return (parseJsonPath(path)?.length ?? 0) > 0;
}

export const jsonPathMessage = `must be a JSON path like "$.data.orderId" ($ then 1 to ${jsonPathLimits.segments} .field or [index] segments)`;

export const jsonPathSchema = z.string().max(jsonPathLimits.length).refine(isJsonPath, { message: jsonPathMessage });

/** What a path's value is compared with: one JSON scalar (equality of objects is left out on purpose). */
export const jsonScalarSchema = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
export type JsonScalar = z.infer<typeof jsonScalarSchema>;

/** `{ path, equals }`: true when the value at `path` is `equals`. */
export const jsonPathEqualitySchema = z.strictObject({ path: jsonPathSchema, equals: jsonScalarSchema });
export type JsonPathEquality = z.infer<typeof jsonPathEqualitySchema>;

/** Whether `value` holds `equality.equals` at `equality.path` (a path that does not parse never matches). */
export function matchesJsonPath(value: unknown, equality: JsonPathEquality): boolean {
  const segments = parseJsonPath(equality.path);
  return segments !== undefined && valueAtJsonPath(value, segments) === equality.equals;
}
