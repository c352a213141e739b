import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    // Keeps every platform log line of the run and fails the run if one holds a secret; migrates
    // the databases each test file's own database is copied from.
    globalSetup: ["packages/testing/src/secret-scan-setup.ts", "packages/testing/src/database-template-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    restoreMocks: true,
  },
});
