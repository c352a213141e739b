import { type Token, tokenize } from "./source-scanner.ts";

export class PinError extends Error {
  override readonly name = "PinError";
}

interface ConfigObject {
  open: Token;
  close: Token;
  /** The first token of each property, in order. */
  properties: { key: Token; keyName: string | undefined; valueStart: Token | undefined; valueEnd: Token | undefined }[];
}

const opening = new Set(["{", "[", "("]);
const closing = new Set(["}", "]", ")"]);

function keyName(token: Token): string | undefined {
  if (token.kind === "identifier") return token.text;
  if (token.kind === "string" && !token.text.startsWith("`")) return token.text.slice(1, -1);
  return undefined;
}

/** Finds the object literal passed to `defineConfig(...)` and its top-level properties. */
function findConfigObject(tokens: Token[]): ConfigObject | undefined {
  const call = tokens.findIndex(
    (token, index) =>
      token.kind === "identifier" &&
      token.text === "defineConfig" &&
      tokens[index + 1]?.text === "(" &&
      tokens[index + 2]?.text === "{",
  );
  if (call === -1) return undefined;
  const openIndex = call + 2;
  const open = tokens[openIndex] as Token;
  const properties: ConfigObject["properties"] = [];
  let depth = 0;
  let expectingKey = true;
  let current: ConfigObject["properties"][number] | undefined;
  let inValue = false;
  for (let index = openIndex + 1; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (depth === 0 && token.text === "}") return { open, close: token, properties };
    if (depth === 0 && token.text === ",") {
      expectingKey = true;
      inValue = false;
      continue;
    }
    if (depth === 0 && expectingKey) {
      expectingKey = false;
      current = { key: token, keyName: keyName(token), valueStart: undefined, valueEnd: undefined };
      properties.push(current);
      if (tokens[index + 1]?.text === ":") {
        index++;
        inValue = true;
        continue;
      }
    } else if (inValue && current !== undefined) {
      current.valueStart ??= token;
      current.valueEnd = token;
    }
    if (opening.has(token.text)) depth++;
    else if (closing.has(token.text)) depth--;
  }
  return undefined;
}

function lineStart(source: string, position: number): number {
  return source.lastIndexOf("\n", position - 1) + 1;
}

/**
 * Writes `project: "<id>"` into the `defineConfig({ … })` object of a `weft.config.ts`, replacing the
 * value if the property exists and inserting it as the first property otherwise. Everything else —
 * comments, formatting, quotes — is left as it was.
 */
export function pinProject(source: string, projectId: string): string {
  const config = findConfigObject(tokenize(source));
  if (config === undefined) {
    throw new PinError("could not find `defineConfig({ … })` in the config file");
  }
  const literal = JSON.stringify(projectId);
  const existing = config.properties.find((property) => property.keyName === "project");
  if (existing !== undefined) {
    if (existing.valueStart === undefined || existing.valueEnd === undefined) {
      // Shorthand `project,`: spell it out.
      return `${source.slice(0, existing.key.start)}project: ${literal}${source.slice(existing.key.end)}`;
    }
    return `${source.slice(0, existing.valueStart.start)}${literal}${source.slice(existing.valueEnd.end)}`;
  }
  const first = config.properties[0];
  if (first === undefined) {
    return `${source.slice(0, config.open.start)}{ project: ${literal} }${source.slice(config.close.end)}`;
  }
  const between = source.slice(config.open.end, first.key.start);
  if (!between.includes("\n")) {
    return `${source.slice(0, first.key.start)}project: ${literal}, ${source.slice(first.key.start)}`;
  }
  // Multi-line object: a line of its own, indented like the first property, placed right after the
  // line of the opening brace so that comments above the first property stay with it.
  const firstLine = lineStart(source, first.key.start);
  const indent = /^[ \t]*/.exec(source.slice(firstLine))?.[0] ?? "  ";
  const insertAt = source.indexOf("\n", config.open.end) + 1;
  return `${source.slice(0, insertAt)}${indent}project: ${literal},\n${source.slice(insertAt)}`;
}

/** The project pinned in a config file's source, if it is written as a string literal. */
export function pinnedProject(source: string): string | undefined {
  const config = findConfigObject(tokenize(source));
  const property = config?.properties.find((candidate) => candidate.keyName === "project");
  if (property?.valueStart === undefined || property.valueStart !== property.valueEnd) return undefined;
  return property.valueStart.kind === "string" ? property.valueStart.text.slice(1, -1) : undefined;
}
