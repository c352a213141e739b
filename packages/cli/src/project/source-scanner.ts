/**
 * A small lexer for TypeScript source: enough to tell code from comments, strings, template
 * literals and regular expressions, so that `weft.config.ts` can be edited without touching
 * anything but the one value being written.
 */

export interface Token {
  kind: "identifier" | "string" | "punctuation" | "other";
  text: string;
  start: number;
  end: number;
}

const identifierStart = /[A-Za-z_$]/;
const identifierPart = /[A-Za-z0-9_$]/;
/** After these tokens a `/` starts a regular expression, not a division. */
const regexAfter = new Set([
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
  "=>",
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
]);

function skipString(source: string, start: number): number {
  const quote = source[start];
  let i = start + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] === "\\") i++;
    else if (source[i] === "\n") break;
    i++;
  }
  return i + 1;
}

function skipRegex(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length && source[i] !== "\n") {
    const char = source[i];
    if (char === "\\") i++;
    else if (char === "[") inClass = true;
    else if (char === "]") inClass = false;
    else if (char === "/" && !inClass) break;
    i++;
  }
  i++;
  while (i < source.length && identifierPart.test(source[i] ?? "")) i++;
  return i;
}

/**
 * Splits source into tokens, dropping whitespace and comments. A template literal is one token
 * (with its `${…}` parts inside), which is all the editing needs.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: Token["kind"], start: number, end: number) => {
    tokens.push({ kind, text: source.slice(start, end), start, end });
  };
  while (i < source.length) {
    const char = source[i] ?? "";
    const next = source[i + 1];
    if (/\s/.test(char)) {
      i++;
    } else if (char === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (char === "/" && next === "*") {
      const close = source.indexOf("*/", i + 2);
      i = close === -1 ? source.length : close + 2;
    } else if (char === '"' || char === "'") {
      const end = skipString(source, i);
      push("string", i, end);
      i = end;
    } else if (char === "`") {
      const end = skipTemplate(source, i);
      push("string", i, end);
      i = end;
    } else if (char === "/" && (tokens.length === 0 || regexAfter.has(tokens.at(-1)?.text ?? ""))) {
      const end = skipRegex(source, i);
      push("other", i, end);
      i = end;
    } else if (identifierStart.test(char)) {
      let end = i + 1;
      while (end < source.length && identifierPart.test(source[end] ?? "")) end++;
      push("identifier", i, end);
      i = end;
    } else if (char === "=" && next === ">") {
      push("punctuation", i, i + 2);
      i += 2;
    } else if (char === "." && next === "." && source[i + 2] === ".") {
      push("punctuation", i, i + 3);
      i += 3;
    } else if ("{}()[],:;".includes(char)) {
      push("punctuation", i, i + 1);
      i++;
    } else {
      let end = i + 1;
      while (end < source.length && /[0-9.xXa-fA-FnN_]/.test(source[end] ?? "") && /[0-9]/.test(char)) end++;
      push(/[0-9]/.test(char) ? "other" : "punctuation", i, end);
      i = end;
    }
  }
  return tokens;
}

function skipTemplate(source: string, start: number): number {
  let i = start + 1;
  while (i < source.length) {
    const char = source[i];
    if (char === "\\") {
      i += 2;
    } else if (char === "`") {
      return i + 1;
    } else if (char === "$" && source[i + 1] === "{") {
      i = skipTemplateExpression(source, i + 2);
    } else {
      i++;
    }
  }
  return i;
}

function skipTemplateExpression(source: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < source.length && depth > 0) {
    const char = source[i];
    if (char === '"' || char === "'") i = skipString(source, i);
    else if (char === "`") i = skipTemplate(source, i);
    else {
      if (char === "{") depth++;
      else if (char === "}") depth--;
      i++;
    }
  }
  return i;
}
