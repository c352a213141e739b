import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Folders that hold no file of ours: installed packages, builds, run output. */
const skippedFolders = new Set([".git", "node_modules", "dist", "studio-dist", "test-results", ".weft", ".scratch"]);

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    if (skippedFolders.has(name)) return [];
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const files = filesUnder(repositoryRoot);
const markdownFiles = files.filter((path) => path.endsWith(".md"));
/** Where a comment or a message may name a document: sources, migrations, configuration. */
const codeFiles = files.filter(
  (path) => /\.(ts|tsx|sql|json|mjs|yml)$/.test(path) && !path.endsWith("package-lock.json"),
);

/** Markdown without its fenced code blocks, where text is quoted rather than written. */
function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** Markdown without code blocks and inline code, where a link would be quoted rather than followed. */
function proseOf(markdown: string): string {
  return withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, "");
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ""] of withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*_]/g, "");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id = ""] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Every relative link target of a markdown file: inline links, images and reference definitions. */
function linkTargets(markdown: string): string[] {
  const prose = proseOf(markdown);
  const inline = [...prose.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    ([, target = ""]) => target,
  );
  const definitions = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    ([, target = ""]) => target,
  );
  return [...inline, ...definitions].filter((target) => !/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target));
}

/** Why a link from `file` to `target` does not resolve, or undefined when it does. */
function brokenLink(file: string, target: string): string | undefined {
  const [pathPart = "", anchor] = target.split("#", 2);
  const path = pathPart === "" ? file : join(dirname(file), decodeURIComponent(pathPart.split("?")[0] ?? ""));
  if (!existsSync(path)) return "no such file";
  if (anchor === undefined || anchor === "" || !path.endsWith(".md") || statSync(path).isDirectory()) return undefined;
  return headingAnchors(readFileSync(path, "utf8")).has(decodeURIComponent(anchor).toLowerCase())
    ? undefined
    : `no heading with the anchor #${anchor}`;
}

/** The documents a text names by their path from the repository's root: `docs/…md`. */
function namedDocuments(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md\b/g)].map(([path]) => path);
}

describe("references to documents", () => {
  it("finds the documents and the sources it checks", () => {
    expect(markdownFiles.map((path) => relative(repositoryRoot, path))).toContain("docs/architecture.md");
    expect(codeFiles.length).toBeGreaterThan(100);
  });

  it("every relative link of a markdown file reaches an existing file (and heading)", () => {
    const broken = markdownFiles.flatMap((file) =>
      linkTargets(readFileSync(file, "utf8")).flatMap((target) => {
        const reason = brokenLink(file, target);
        return reason === undefined ? [] : [`${relative(repositoryRoot, file)}: (${target}) ${reason}`];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("every docs/…md path named in a document, a comment or a message exists", () => {
    const missing = [...markdownFiles, ...codeFiles].flatMap((file) =>
      namedDocuments(readFileSync(file, "utf8"))
        .filter((path) => !existsSync(join(repositoryRoot, path)))
        .map((path) => `${relative(repositoryRoot, file)}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("no file cites a design or specification document the repository does not hold", () => {
    const citations = [...markdownFiles, ...codeFiles].flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/\b(DESIGN|SPEC)\.md\b|\bSPEC \u00a7/g)].map(
        ([citation]) => `${relative(repositoryRoot, file)}: ${citation}`,
      ),
    );
    expect(citations).toEqual([]);
  });
});
