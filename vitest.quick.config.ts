import { defineConfig } from "vitest/config";
import full from "./vitest.config.ts";

/**
 * `npm run test:quick`: a smoke run of about a minute, one file or two per surface (the contract walk,
 * the engine, ingress, both registrations, MCP, the hostile API walk, the sandbox channel, the CLI),
 * to run before a push. `npm test` runs these and every other file.
 */
const smokeFiles = [
  "packages/sdk/test/build-manifest.test.ts",
  "packages/client/test/client.test.ts",
  "packages/testing/test/package-order.test.ts",
  "packages/server/test/config.test.ts",
  "packages/server/test/rpc-projects.test.ts",
  "packages/server/test/rpc-isolation.test.ts",
  "packages/server/test/access-members.test.ts",
  "packages/server/test/engine-state-machine.test.ts",
  "packages/server/test/engine-worker.test.ts",
  "packages/server/test/engine-rpc.test.ts",
  "packages/server/test/schedules-rpc.test.ts",
  "packages/server/test/ingress-webhooks.test.ts",
  "packages/server/test/ingress-hosted-forms.test.ts",
  "packages/server/test/auth-email-flow.test.ts",
  "packages/server/test/auth-id-jag.test.ts",
  "packages/server/test/mcp-endpoint.test.ts",
  "packages/server/test/hostile-tenant-api.test.ts",
  "packages/server/test/sandbox-channel.test.ts",
  "packages/server/test/egress-address-policy.test.ts",
  "packages/cli/test/cli-basics.test.ts",
];

export default defineConfig({ ...full, test: { ...full.test, include: smokeFiles } });
