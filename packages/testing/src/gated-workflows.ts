import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The start of a test's `weft.config.ts` whose workflows wait at gates: `await gate("name")` in a
 * workflow resolves once the test opens that gate with `openGate`. The source goes on with its own
 * imports and `defineConfig`.
 */
export const gatedConfigPreamble = `
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** Resolves once the test opens the gate by writing a file beside the bundle. */
async function gate(name: string): Promise<void> {
  while (!existsSync(join(here, "gate-" + name))) await new Promise((resolve) => setTimeout(resolve, 10));
}
`;

/** Opens the gate `name` of the bundle of `deploymentId`, kept under the platform's or the worker's `dataDir`. */
export function openGate(dataDir: string, deploymentId: string, name: string): void {
  writeFileSync(join(dataDir, "bundles", deploymentId, `gate-${name}`), "open");
}
