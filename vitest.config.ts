import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    // Keeps every platform log line of the run and fails the run if one holds a secret; migrates
    // the databases each test file's own database is copied from.
    globalSetup: ["packages/testing/src/secret-scan-setup.ts", "packages/testing/src/database-template-setup.ts"],
    reporters: ["default", "./packages/testing/src/slowest-files-reporter.ts"],
    pool: "forks",
    // Vitest leaves one core free by default, which on a 2-core machine runs the files one at a time;
    // most files wait on a database, a platform or a subprocess, so every core gets a file.
    maxWorkers: Math.max(2, availableParallelism()),
    // A worker runs its files one after another on the modules it has loaded: loading the platform's
    // module graph again for each file was a quarter of the run. Each file still gets its own
    // database and its own platforms, and puts back any environment variable it changes.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    restoreMocks: true,
  },
});
