import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** The most gzipped JavaScript a first visit may load: the shell plus the page it opens on. */
export const firstLoadBudgetBytes = 300 * 1024;

interface Chunk {
  fileName: string;
  code: string;
  imports: string[];
  isEntry: boolean;
  isDynamicEntry: boolean;
  facadeModuleId: string | null;
}

/**
 * Prints, after each build, the gzipped JavaScript of the first load (the entry and what it imports
 * statically, plus the heaviest page, since a visit can start on any of them) and of each route,
 * and fails the build past the budget.
 */
export function bundleSizeReport(): Plugin {
  return {
    name: "weft-bundle-size-report",
    apply: "build",
    generateBundle(_options, bundle) {
      const chunks = new Map<string, Chunk>();
      for (const output of Object.values(bundle)) {
        if (output.type === "chunk") chunks.set(output.fileName, output);
      }
      const gzipped = new Map([...chunks].map(([name, chunk]) => [name, gzipSync(chunk.code, { level: 9 }).length]));
      const closure = (start: string, seen = new Set<string>()): Set<string> => {
        if (seen.has(start)) return seen;
        seen.add(start);
        for (const imported of chunks.get(start)?.imports ?? []) closure(imported, seen);
        return seen;
      };
      const sum = (names: Iterable<string>): number =>
        [...names].reduce((total, name) => total + (gzipped.get(name) ?? 0), 0);
      const entry = [...chunks.values()].find((chunk) => chunk.isEntry);
      if (entry === undefined) return;
      const shell = closure(entry.fileName);
      const routes = [...chunks.values()]
        .filter((chunk) => chunk.isDynamicEntry && chunk.facadeModuleId?.includes("/pages/") === true)
        .map((chunk) => {
          const own = [...closure(chunk.fileName)].filter((name) => !shell.has(name));
          return { page: pageName(chunk), routeBytes: sum(own), firstLoadBytes: sum(shell) + sum(own) };
        })
        .sort((a, b) => a.page.localeCompare(b.page));
      const firstLoad = Math.max(...routes.map((route) => route.firstLoadBytes), sum(shell));
      const kB = (bytes: number): string => `${(bytes / 1024).toFixed(1)} kB`;
      const lines = [
        `Studio bundle (gzipped JavaScript): shell ${kB(sum(shell))}, first load at most ${kB(firstLoad)} (budget ${kB(firstLoadBudgetBytes)})`,
        ...routes.map(
          (route) =>
            `  ${route.page.padEnd(18)} route ${kB(route.routeBytes).padStart(9)}  first load ${kB(route.firstLoadBytes)}`,
        ),
      ];
      this.info(lines.join("\n"));
      if (firstLoad > firstLoadBudgetBytes) {
        this.error(
          `Studio's first load is ${kB(firstLoad)} of gzipped JavaScript, past the ${kB(firstLoadBudgetBytes)} budget.`,
        );
      }
    },
  };
}

function pageName(chunk: Chunk): string {
  return (
    (chunk.facadeModuleId ?? chunk.fileName)
      .split("/")
      .pop()
      ?.replace(/\.tsx?$/, "") ?? chunk.fileName
  );
}
