import { execFileSync } from "node:child_process";
import { readFile, rename, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The results file (docs/bench-results.md) keeps the latest figures of each part of `npm run bench`
 * between two markers of its own, so a run of some parts (`BENCH_ONLY`) rewrites only their sections
 * and the rest of the file, the recorded runs included, stays as written.
 */
export const defaultResultsPath = fileURLToPath(new URL("../docs/bench-results.md", import.meta.url));

/** Where new parts go when the file has no section for them yet. */
const partsEndMarker = "<!-- bench:parts:end -->";

function beginMarker(part: string): string {
  return `<!-- bench:${part}:begin -->`;
}

function endMarker(part: string): string {
  return `<!-- bench:${part}:end -->`;
}

/** What a reader needs to compare one run with another: when, which code, which machine, which settings. */
export interface RunDescription {
  startedAt: Date;
  commit: string;
  node: string;
  cores: number;
  loadAverage: number;
  databases: string;
  settings: string[];
}

/**
 * Reads the description of the run that starts now from git, the machine and the environment. The
 * results file it writes (`resultsPath`) does not count as a change to the code: an earlier run's
 * figures not yet committed would otherwise mark every later run "with uncommitted changes".
 */
export function describeRun(env: NodeJS.ProcessEnv, resultsPath: string | undefined): RunDescription {
  return {
    startedAt: new Date(),
    commit: currentCommit(resultsPath),
    node: process.version,
    cores: availableParallelism(),
    loadAverage: loadavg()[0] ?? 0,
    databases: env.WEFT_TEST_DATABASE_URL ? "embedded and PostgreSQL" : "embedded (no WEFT_TEST_DATABASE_URL)",
    settings: Object.keys(env)
      .filter((name) => name.startsWith("BENCH_") && name !== "BENCH_ONLY" && name !== "BENCH_RESULTS")
      .sort()
      .map((name) => `${name}=${env[name]}`),
  };
}

function currentCommit(resultsPath: string | undefined): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const besideResults = resultsPath === undefined ? [] : ["--", ":/", `:(exclude)${resolve(resultsPath)}`];
    const changes = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", ...besideResults], {
      encoding: "utf8",
    });
    return changes.trim() === "" ? commit : `${commit} with uncommitted changes`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** The text between a part's markers: the run's description, then the lines the part printed. */
export function sectionBody(run: RunDescription, lines: readonly string[]): string {
  const when = `${run.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const settings = run.settings.length === 0 ? "default sizes" : run.settings.join(", ");
  return [
    `Run ${when} on commit ${run.commit}; Node ${run.node}, ${run.cores} cores, load average ${run.loadAverage.toFixed(2)} at the start; ${run.databases}; ${settings}.`,
    "",
    "```text",
    ...lines,
    "```",
  ].join("\n");
}

/** The file's text with the part's section replaced, or added before the end of the parts when it had none. */
export function withSection(text: string, part: string, body: string): string {
  const begin = beginMarker(part);
  const end = endMarker(part);
  const section = `${begin}\n\n${body}\n\n${end}`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start !== -1 && stop > start) return text.slice(0, start) + section + text.slice(stop + end.length);
  const heading = `### \`${part}\`\n\n${section}\n\n`;
  const partsEnd = text.indexOf(partsEndMarker);
  if (partsEnd !== -1) return text.slice(0, partsEnd) + heading + text.slice(partsEnd);
  return `${text.trimEnd()}\n\n${heading}`;
}

/** Rewrites the part's section of the results file; the file is replaced whole, never left half-written. */
export async function recordPartResults(
  path: string,
  part: string,
  run: RunDescription,
  lines: readonly string[],
): Promise<void> {
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return `# Benchmark results\n\n${partsEndMarker}\n`;
    throw error;
  });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, withSection(text, part, sectionBody(run, lines)));
  await rename(temporary, path);
}
