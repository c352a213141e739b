import { describe, expect, it } from "vitest";
import { PinError, pinnedProject, pinProject } from "../src/project/pin-project.ts";

const id = "prj_01jabcdefghjkmnpqrstvwxyz0";

describe("pinProject", () => {
  it("inserts project as the first property of a multi-line config, keeping comments and formatting", () => {
    const source = `import { defineConfig } from "@weft/sdk";
// The shop's workflows.
export default defineConfig({ // keep this comment
    /* workflows first */
    workflows: [echo],   // trailing
    forms: [],
});
`;
    expect(pinProject(source, id)).toBe(`import { defineConfig } from "@weft/sdk";
// The shop's workflows.
export default defineConfig({ // keep this comment
    project: "${id}",
    /* workflows first */
    workflows: [echo],   // trailing
    forms: [],
});
`);
  });

  it("replaces an existing value and nothing else", () => {
    const source = `export default defineConfig({
  workflows: [echo],
  project: 'prj_old', // written by weft deploy --create
  webhooks: [{ name: "hook", project: "not-this-one" }],
});`;
    expect(pinProject(source, id)).toBe(source.replace("'prj_old'", `"${id}"`));
  });

  it("replaces a computed value whole", () => {
    const source = `export default defineConfig({ project: process.env.PROJECT ?? ("x" + "}"), workflows: [] });`;
    expect(pinProject(source, id)).toBe(`export default defineConfig({ project: "${id}", workflows: [] });`);
  });

  it("is not fooled by braces and keys inside strings, comments, templates and regular expressions", () => {
    const source = `const pattern = /}{/g;
export default defineConfig({
  // project: "in a comment",
  workflows: [workflow({ name: "a", run: async () => \`\${"}"} project: x\` })],
  forms: [{ name: "f", workflow: "a", schema: { pattern: "project: {" } }],
});`;
    const pinned = pinProject(source, id);
    expect(pinned).toBe(
      source.replace("export default defineConfig({\n", `export default defineConfig({\n  project: "${id}",\n`),
    );
    expect(pinnedProject(pinned)).toBe(id);
  });

  it("writes into a one-line and an empty config", () => {
    expect(pinProject("export default defineConfig({ workflows: [] });", id)).toBe(
      `export default defineConfig({ project: "${id}", workflows: [] });`,
    );
    expect(pinProject("export default defineConfig({});", id)).toBe(
      `export default defineConfig({ project: "${id}" });`,
    );
  });

  it("spells out a shorthand property", () => {
    expect(pinProject("const project = 'x';\nexport default defineConfig({ project, workflows: [] });", id)).toBe(
      `const project = 'x';\nexport default defineConfig({ project: "${id}", workflows: [] });`,
    );
  });

  it("is idempotent", () => {
    const once = pinProject("export default defineConfig({\n  workflows: [],\n});\n", id);
    expect(pinProject(once, id)).toBe(once);
  });

  it("refuses a file without defineConfig({ … })", () => {
    expect(() => pinProject("export default { workflows: [] };", id)).toThrow(PinError);
    expect(() => pinProject("export default defineConfig(config);", id)).toThrow(PinError);
  });
});

describe("pinnedProject", () => {
  it("reads a literal project and ignores anything else", () => {
    expect(pinnedProject(`export default defineConfig({ project: "${id}", workflows: [] })`)).toBe(id);
    expect(pinnedProject("export default defineConfig({ workflows: [] })")).toBeUndefined();
    expect(pinnedProject("export default defineConfig({ project: process.env.P, workflows: [] })")).toBeUndefined();
  });
});
