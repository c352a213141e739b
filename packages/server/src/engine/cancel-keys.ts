import { createHash } from "node:crypto";
import { parseJsonPath, valueAtJsonPath, type WorkflowManifest } from "@weft/contract";

/**
 * JSON text with object keys sorted, so that two values jsonb holds equal give one text whatever
 * order their keys were sent in (the comparison a `match` made before keys were stored).
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The key under which an execution is cancelled by `event` when its input holds `value` at
 * `inputPath`: a digest of all of them with the project and the workflow, so an index entry has one
 * size whatever the tenant's input, and no other project or workflow shares a key's entries.
 */
export function cancelKey(
  target: { projectId: string; workflow: string; event: string; inputPath: readonly string[] },
  value: unknown,
): string {
  const text = JSON.stringify([
    target.projectId,
    target.workflow,
    target.event,
    target.inputPath,
    canonicalJson(value),
  ]);
  return createHash("sha256").update(text).digest("base64url");
}

/**
 * The keys a new execution of `workflow` with `input` can be cancelled by: one per `cancelOn` entry
 * with a `match` whose input path holds a value (an input lacking it matches no event, as before).
 * Empty for a workflow with no such entry.
 */
export function cancelKeysOf(workflow: WorkflowManifest, projectId: string, input: unknown): string[] {
  const keys = new Set<string>();
  for (const entry of workflow.cancelOn ?? []) {
    if (entry.match === undefined) continue;
    const inputPath = parseJsonPath(entry.match.input);
    if (inputPath === undefined) continue;
    const value = valueAtJsonPath(input, inputPath);
    if (value === undefined) continue;
    keys.add(cancelKey({ projectId, workflow: workflow.name, event: entry.event, inputPath }, value));
  }
  return [...keys];
}
