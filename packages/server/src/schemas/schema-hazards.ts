import { linearPatternProblem } from "./linear-regexp.ts";

export type SchemaPath = (string | number)[];

/** A part of a JSON Schema the platform refuses to run, with the path of the keyword inside the schema. */
export interface SchemaHazard {
  path: SchemaPath;
  message: string;
}

type SchemaNode = Record<string, unknown> | boolean;

/** Keywords whose value is one subschema. */
const singleSubschema = [
  "additionalProperties",
  "additionalItems",
  "items",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
/** Keywords whose value is an array of subschemas. */
const subschemaArrays = ["allOf", "anyOf", "oneOf", "prefixItems", "items"] as const;
/** Keywords whose value maps names to subschemas. */
const subschemaMaps = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
/** Keywords that apply their subschemas to the same value: a `$ref` cycle through only these never ends. */
const sameValueArrays = ["allOf", "anyOf", "oneOf"] as const;
const sameValueSingles = ["not", "if", "then", "else"] as const;
/** Dynamic references resolve at run time, so a cycle through them cannot be ruled out at deploy. */
const unsupportedKeywords = ["$dynamicRef", "$recursiveRef"] as const;

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === "boolean" || (typeof value === "object" && value !== null && !Array.isArray(value));
}

function isObjectNode(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Each subschema of `node` with the keyword path that leads to it. */
function subschemasOf(node: Record<string, unknown>): { path: SchemaPath; schema: SchemaNode }[] {
  const found: { path: SchemaPath; schema: SchemaNode }[] = [];
  for (const keyword of singleSubschema) {
    const value = node[keyword];
    if (isSchemaNode(value)) found.push({ path: [keyword], schema: value });
  }
  for (const keyword of subschemaArrays) {
    const value = node[keyword];
    if (!Array.isArray(value)) continue;
    value.forEach((item, index) => {
      if (isSchemaNode(item)) found.push({ path: [keyword, index], schema: item });
    });
  }
  for (const keyword of subschemaMaps) {
    const value = node[keyword];
    if (!isObjectNode(value)) continue;
    for (const [name, item] of Object.entries(value)) {
      if (isSchemaNode(item)) found.push({ path: [keyword, name], schema: item });
    }
  }
  return found;
}

/** The path inside the root schema that a local `$ref` names, or undefined when it names nothing there. */
function resolveLocalRef(root: SchemaNode, ref: string): SchemaPath | undefined {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  const path: SchemaPath = [];
  let current: unknown = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment) || Number(segment) >= current.length) return undefined;
      path.push(Number(segment));
      current = current[Number(segment)];
    } else if (isObjectNode(current) && Object.hasOwn(current, segment)) {
      path.push(segment);
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return isSchemaNode(current) ? path : undefined;
}

function nodeAt(root: SchemaNode, path: SchemaPath): SchemaNode {
  let current: unknown = root;
  for (const segment of path) current = (current as Record<string | number, unknown>)[segment];
  return current as SchemaNode;
}

/**
 * Patterns a linear-time engine cannot run, and references that resolve to nothing, to something
 * other than this document, or back to themselves without the value getting any smaller
 * (`{"$ref": "#"}`, `a → allOf → b → a`): validating such a schema recurses until the stack runs
 * out. A recursive schema that descends into properties or items is well-founded and allowed.
 */
export function findSchemaHazards(root: SchemaNode): SchemaHazard[] {
  const hazards: SchemaHazard[] = [];
  /** The resolved target of each `$ref`, by the key of the schema that holds it. */
  const refTargets = new Map<string, SchemaPath>();
  const pending: { path: SchemaPath; schema: SchemaNode }[] = [{ path: [], schema: root }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, schema } = next;
    if (typeof schema === "boolean") continue;
    for (const keyword of unsupportedKeywords) {
      if (schema[keyword] !== undefined) {
        hazards.push({ path: [...path, keyword], message: `uses ${keyword}, which is not supported: use $ref` });
      }
    }
    if (path.length > 0 && schema.$id !== undefined) {
      hazards.push({
        path: [...path, "$id"],
        message: "sets $id below the root, which is not supported: refer to $defs with #/$defs/…",
      });
    }
    if (typeof schema.pattern === "string") {
      const problem = linearPatternProblem(schema.pattern);
      if (problem !== undefined) hazards.push({ path: [...path, "pattern"], message: problem });
    }
    if (isObjectNode(schema.patternProperties)) {
      for (const pattern of Object.keys(schema.patternProperties)) {
        const problem = linearPatternProblem(pattern);
        if (problem !== undefined) hazards.push({ path: [...path, "patternProperties", pattern], message: problem });
      }
    }
    if (schema.$ref !== undefined) {
      const target = typeof schema.$ref === "string" ? resolveLocalRef(root, schema.$ref) : undefined;
      if (target === undefined) {
        hazards.push({
          path: [...path, "$ref"],
          message: `${JSON.stringify(schema.$ref)} does not resolve to a schema in this document: expected a reference such as #/$defs/name`,
        });
      } else {
        refTargets.set(JSON.stringify(path), target);
      }
    }
    for (const child of subschemasOf(schema)) pending.push({ path: [...path, ...child.path], schema: child.schema });
  }
  if (hazards.length > 0) return hazards;
  const cycle = findSameValueCycle(root, refTargets);
  if (cycle !== undefined) {
    hazards.push({
      path: cycle,
      message: "refers back to itself without descending into a property or item, so validation would never end",
    });
  }
  return hazards;
}

/** The path of the keyword that closes a cycle of same-value applications, if there is one. */
function findSameValueCycle(root: SchemaNode, refTargets: ReadonlyMap<string, SchemaPath>): SchemaPath | undefined {
  const done = new Set<string>();
  const successors = (path: SchemaPath): SchemaPath[] => {
    const node = nodeAt(root, path);
    if (typeof node === "boolean") return [];
    const next: SchemaPath[] = [];
    const target = refTargets.get(JSON.stringify(path));
    if (target !== undefined) next.push(target);
    for (const keyword of sameValueArrays) {
      const value = node[keyword];
      if (!Array.isArray(value)) continue;
      for (let index = 0; index < value.length; index += 1) next.push([...path, keyword, index]);
    }
    for (const keyword of sameValueSingles) {
      if (isSchemaNode(node[keyword])) next.push([...path, keyword]);
    }
    const dependent = node.dependentSchemas;
    if (isObjectNode(dependent))
      for (const name of Object.keys(dependent)) next.push([...path, "dependentSchemas", name]);
    return next;
  };
  // Depth-first without recursion: a hostile schema may nest deeply.
  for (const start of [[] as SchemaPath, ...refTargets.values()]) {
    if (done.has(JSON.stringify(start))) continue;
    const onStack = new Set<string>([JSON.stringify(start)]);
    const stack: { path: SchemaPath; next: SchemaPath[] }[] = [{ path: start, next: successors(start) }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { path: SchemaPath; next: SchemaPath[] };
      const child = top.next.pop();
      if (child === undefined) {
        const key = JSON.stringify(top.path);
        onStack.delete(key);
        done.add(key);
        stack.pop();
        continue;
      }
      const key = JSON.stringify(child);
      if (onStack.has(key)) {
        const viaRef = JSON.stringify(refTargets.get(JSON.stringify(top.path))) === key;
        return viaRef ? [...top.path, "$ref"] : child;
      }
      if (done.has(key)) continue;
      onStack.add(key);
      stack.push({ path: child, next: successors(child) });
    }
  }
  return undefined;
}
