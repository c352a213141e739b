import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packedNodeRange } from "../../../pack/tarballs.ts";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
const rootManifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  engines: { node: string };
};

describe("the README's Quick start", () => {
  it("states the Node that installing needs, as the root package.json's engines does", () => {
    const stated = /\(Node (\d+(?:\.\d+)*) or newer to install\)/.exec(readme)?.[1];
    expect(stated, "README.md says which Node installs the repository").toBeDefined();
    expect(rootManifest.engines.node).toBe(`>=${stated}`);
  });

  it("states the Node the packed tarballs install under, as their engines do", () => {
    const stated = /install anywhere from tarballs, under Node (\d+(?:\.\d+)*) or newer/.exec(readme)?.[1];
    expect(stated, "README.md says which Node the tarballs install under").toBeDefined();
    expect(packedNodeRange).toBe(`>=${stated}`);
  });
});
