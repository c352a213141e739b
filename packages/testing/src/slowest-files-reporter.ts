import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** How many files the report names: enough to show where a run's time goes, short enough to read. */
const filesShown = 10;

/**
 * Prints the files that took longest at the end of a run, import and tests apart, so a slow file is
 * seen the day it becomes slow rather than when the whole run is.
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules.map((testModule) => {
      const diagnostic = testModule.diagnostic();
      const importMs = diagnostic.environmentSetupDuration + diagnostic.prepareDuration + diagnostic.collectDuration;
      return {
        file: relative(process.cwd(), testModule.moduleId),
        importMs,
        testsMs: diagnostic.duration,
        totalMs: importMs + diagnostic.setupDuration + diagnostic.duration,
      };
    });
    if (timed.length < 2) return;
    timed.sort((a, b) => b.totalMs - a.totalMs);
    const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
    const lines = timed
      .slice(0, filesShown)
      .map(
        ({ file, importMs, testsMs, totalMs }) =>
          `${seconds(totalMs)} s  (import ${seconds(importMs)} s, tests ${seconds(testsMs)} s)  ${file}`,
      );
    const allMs = timed.reduce((sum, { totalMs }) => sum + totalMs, 0);
    process.stdout.write(
      `\nThe ${lines.length} slowest of ${timed.length} test files (${seconds(allMs).trim()} s in all files together):\n${lines.join("\n")}\n`,
    );
  }
}
