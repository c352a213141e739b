import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logCaptureDirVariable, scanCapturedLogs } from "./secret-scanner.ts";

/**
 * Vitest's global setup: makes the run's log directory before any test process starts (they inherit
 * the variable), and at the end scans every line kept there. A secret found fails the run; the
 * directory is then left in place for a look at the lines.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "weft-test-logs-"));
  process.env[logCaptureDirVariable] = dir;
  return () => {
    const scan = scanCapturedLogs(dir);
    console.log(
      `Log secret scan: ${scan.lines} lines in ${scan.files} files scanned, ${scan.findings.length} secrets found.`,
    );
    if (scan.findings.length === 0) {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    const where = scan.findings.map(
      (finding) => `  ${finding.kind} at ${join(dir, finding.file ?? "")}:${finding.line}`,
    );
    throw new Error(`Secrets found in the platform's logs:\n${where.join("\n")}`);
  };
}
