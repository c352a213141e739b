import fc from "fast-check";

/** A JSON object whose own keys are `__proto__` and `constructor`, as a parsed hostile body has them. */
function prototypeKeys(inner: unknown): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify({ proto: inner, constructor: { prototype: { polluted: true } } }).replace('"proto"', '"__proto__"'),
  ) as Record<string, unknown>;
}

function nested(depth: number, kind: "array" | "object"): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = kind === "array" ? [value] : { a: value };
  return value;
}

const controlCharacter = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code));

/** Text that breaks naive handling: control characters, lone surrogates, NUL, bidi overrides, huge runs. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: controlCharacter, minLength: 1, maxLength: 20 }),
  fc.constantFrom(
    "\u0000",
    "\ud800",
    "\udfff\ud800",
    "\u202e",
    "\ufeff",
    "%00",
    "../../etc/passwd",
    "<script>",
    "'; --",
  ),
  // Any code point, lone surrogates included. fast-check's `unit: "binary"` builds a map of every
  // code point when the arbitrary is made, which every file importing this package would pay for.
  fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 40 }).map((codes) => String.fromCodePoint(...codes)),
  fc.constantFrom(1024, 64 * 1024, 300 * 1024, 1024 * 1024 + 1).map((length) => "x".repeat(length)),
);

/** A value of the wrong type or shape for wherever it lands. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, [], {}, ""),
  hostileString,
  fc.integer({ min: 50, max: 500 }).map((depth) => nested(depth, "array")),
  fc.integer({ min: 50, max: 500 }).map((depth) => nested(depth, "object")),
  fc.jsonValue({ maxDepth: 2 }).map(prototypeKeys),
  fc.jsonValue({ maxDepth: 3 }),
);

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, index) => pathsOf(item, [...prefix, index])));
  if (typeof value === "object" && value !== null) {
    return here.concat(Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...prefix, key])));
  }
  return here;
}

function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value))
    return value.map((item, index) => (index === head ? replaceAt(item, rest, replacement) : item));
  const object = value as Record<string, unknown>;
  return { ...object, [head]: replaceAt(object[head as string], rest, replacement) };
}

function addKey(value: unknown, key: string, extra: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  // A computed key makes an own property even for `__proto__`.
  return { ...value, [key]: extra };
}

/**
 * `valid` with one hostile change: a member of the wrong type or shape, an unexpected key
 * (`__proto__`, `constructor` among them), or the whole value replaced. Half the time it is left as it is.
 */
export function mutatedValue(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return valid.chain((value) => {
    const paths = pathsOf(value);
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(value) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.constantFrom(...paths), hostileValue)
          .map(([path, replacement]) => replaceAt(value, path, replacement)),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom("__proto__", "constructor", "prototype", "toString", "extra"), hostileValue)
          .map(([key, extra]) => addKey(value, key, extra)),
      },
    );
  });
}

const invalidUtf8 = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]].map(
  (bytes) => Uint8Array.from(bytes),
);

/** JSON text nested deeper than any value a test could build and stringify. */
const deeplyNestedText = fc
  .tuple(fc.integer({ min: 1000, max: 200_000 }), fc.constantFrom(["[", "]"], ['{"a":', "}"]))
  .map(([depth, [open, close]]) => Buffer.from(`${open.repeat(depth)}1${close.repeat(depth)}`));

/** Body bytes broken on the wire: truncated, with bytes that are not UTF-8 spliced in, nested too deep, or empty. */
export function mutatedBody(body: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(body) },
    { weight: 1, arbitrary: deeplyNestedText },
    { weight: 2, arbitrary: fc.nat({ max: Math.max(body.length - 1, 0) }).map((end) => body.subarray(0, end)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat({ max: body.length }), fc.constantFrom(...invalidUtf8))
        .map(([at, bytes]) => Buffer.concat([body.subarray(0, at), bytes, body.subarray(at)])),
    },
    { weight: 1, arbitrary: fc.constant(new Uint8Array()) },
  );
}

/** The declared content type: mostly the right one, sometimes another or none at all. */
export function mutatedContentType(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(right) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        "text/plain",
        "application/json; charset=utf-16",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/json;;;",
        "*/*",
      ),
    },
  );
}

/** Every UTF-8 byte as `%XX`; unlike `encodeURIComponent` it takes lone surrogates (as U+FFFD). */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
}

/** A path segment: plain, percent-encoded, or with escapes that do not decode. */
export function hostileSegment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: hostileString.map((text) => percentEncoded(text.slice(0, 4096)) || "x") },
    { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "%C0%AF", "%ED%A0%80", "%00", "..", "%2e%2e") },
  );
}
