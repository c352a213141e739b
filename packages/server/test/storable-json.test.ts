import { describe, expect, it } from "vitest";
import { checkStorableJson, describeUnstorable, formatJsonPath } from "../src/shared/storable-json.ts";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

describe("checkStorableJson", () => {
  it("accepts ordinary values, surrogate pairs included", () => {
    expect(checkStorableJson({ name: "Zoë 😀", list: [1, true, null, { x: "y" }] })).toEqual({ ok: true });
    expect(checkStorableJson(nested(64))).toEqual({ ok: true });
  });

  it("refuses nesting deeper than the bound, naming where it gets too deep", () => {
    const check = checkStorableJson(nested(65));
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problem).toBe("too_deep");
    expect(check.path).toHaveLength(64);
  });

  it("walks 20 000 levels without overflowing the stack", () => {
    let value: unknown = [];
    for (let level = 0; level < 20_000; level += 1) value = [value];
    expect(checkStorableJson(value)).toMatchObject({ ok: false, problem: "too_deep" });
  });

  it("names the field holding a NUL or a lone surrogate, in values and in keys", () => {
    const nul = checkStorableJson({ items: [{ name: "a" }, { name: "b\u0000" }] });
    expect(nul).toEqual({ ok: false, problem: "nul_character", path: ["items", 1, "name"] });
    if (nul.ok) return;
    expect(describeUnstorable(nul)).toBe("items[1].name contains a NUL character (\\u0000), which cannot be stored");
    expect(checkStorableJson({ "k\uD800": 1 })).toEqual({ ok: false, problem: "lone_surrogate", path: ["k\uD800"] });
    expect(checkStorableJson("\uDC00")).toEqual({ ok: false, problem: "lone_surrogate", path: [] });
  });

  it("refuses values that are not JSON, as richer decoders than JSON.parse produce them", () => {
    expect(checkStorableJson({ input: { n: 10n } })).toEqual({ ok: false, problem: "not_json", path: ["input", "n"] });
    expect(checkStorableJson([new Date(0)])).toEqual({ ok: false, problem: "not_json", path: [0] });
    expect(checkStorableJson({ m: new Map() })).toMatchObject({ ok: false, problem: "not_json", path: ["m"] });
    expect(checkStorableJson({ x: Number.NaN })).toMatchObject({ ok: false, problem: "not_json", path: ["x"] });
    expect(checkStorableJson({ x: Number.POSITIVE_INFINITY })).toMatchObject({ ok: false, problem: "not_json" });
    const check = checkStorableJson({ big: 1n });
    if (check.ok) throw new Error("expected a refusal");
    expect(describeUnstorable(check)).toBe(
      "big is not a JSON value (string, finite number, boolean, null, array or object)",
    );
    expect(checkStorableJson({ absent: undefined, bare: Object.create(null) })).toEqual({ ok: true });
    // oRPC's form decoder builds objects on an empty, frozen, null-prototype prototype.
    const EmptyPrototype = function EmptyPrototype() {} as unknown as new () => object;
    EmptyPrototype.prototype = Object.freeze(Object.create(null));
    expect(checkStorableJson({ form: new EmptyPrototype() })).toEqual({ ok: true });
  });

  it("formats paths as a reader would write them", () => {
    expect(formatJsonPath([])).toBe("(root)");
    expect(formatJsonPath(["a", 0, "b-c", "d"])).toBe('a[0]["b-c"].d');
  });
});
