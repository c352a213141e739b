import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * While `npm test` runs, every log line a platform writes is kept under one directory per run
 * (named by this variable, made by the global setup), and the global teardown scans it for
 * secrets. Outside such a run (a script, the bench) nothing is kept.
 */
export const logCaptureDirVariable = "WEFT_TEST_LOG_DIR";

/** Where the values registered with `registerSecret` are kept, beside the log files. */
export const registeredSecretsFolder = "registered-secrets";

/** Not part of a longer token on either side. */
const before = "(?<![A-Za-z0-9_-])";
const after = "(?![A-Za-z0-9_-])";
/** 32 random bytes in base64url, as `generateToken` and the HMACs write them. */
const b64of32 = "[A-Za-z0-9_-]{43}";

/**
 * The shape of every secret the platform makes (src/shared/secrets.ts `generateToken`,
 * src/engine/wait-token-ids.ts, src/alerts/webhook-secrets.ts, src/ingress/csrf-token.ts,
 * src/auth/approval-csrf.ts, src/auth/claim-code.ts, src/studio/session/studio-csrf.ts). A secret
 * without a shape of its own is registered with `registerSecret`.
 */
export const secretShapes: readonly { kind: string; pattern: RegExp }[] = [
  { kind: "credential", pattern: new RegExp(`${before}weft_${b64of32}${after}`) },
  { kind: "claim token", pattern: new RegExp(`${before}clm_${b64of32}${after}`) },
  { kind: "approval token", pattern: new RegExp(`${before}apv_${b64of32}${after}`) },
  { kind: "invitation token", pattern: new RegExp(`${before}ivt_${b64of32}${after}`) },
  { kind: "alert webhook secret", pattern: new RegExp(`${before}whsec_${b64of32}${after}`) },
  { kind: "wait token id", pattern: new RegExp(`${before}wtk_${b64of32}${after}`) },
  { kind: "Studio session token", pattern: new RegExp(`${before}wss_${b64of32}${after}`) },
  { kind: "Studio sign-in link token", pattern: new RegExp(`${before}wsl_${b64of32}${after}`) },
  { kind: "Studio CSRF token", pattern: new RegExp(`${before}wsc_${b64of32}${after}`) },
  {
    kind: "hosted-form CSRF token",
    pattern: new RegExp(`${before}\\d{1,16}\\.[A-Za-z0-9_-]{22}\\.${b64of32}${after}`),
  },
  { kind: "approval CSRF token", pattern: new RegExp(`${before}\\d{1,15}\\.${b64of32}${after}`) },
  // Six digits alone are everywhere (ports, durations); next to the word that names them they are a code.
  { kind: "claim code", pattern: /\b(?:code|otp|passcode)\b[^0-9\n]{0,30}?(?<!\d)\d{6}(?!\d)/i },
];

export interface SecretFinding {
  kind: string;
  /** 1-based line of the text or file. */
  line: number;
  file?: string;
}

/** Every secret in `text`, by its shape or as one of the `registered` values. */
export function findSecrets(text: string, registered: readonly string[] = []): SecretFinding[] {
  const findings: SecretFinding[] = [];
  text.split("\n").forEach((content, index) => {
    for (const { kind, pattern } of secretShapes) {
      if (pattern.test(content)) findings.push({ kind, line: index + 1 });
    }
    if (registered.some((value) => content.includes(value))) {
      findings.push({ kind: "registered secret", line: index + 1 });
    }
  });
  return findings;
}

export interface LogScan {
  files: number;
  lines: number;
  findings: SecretFinding[];
}

/** Scans every capture file of a run against the shapes and every value the run's tests registered. */
export function scanCapturedLogs(dir: string): LogScan {
  const registeredDir = join(dir, registeredSecretsFolder);
  const registered = readdirSafe(registeredDir).flatMap((name) =>
    readFileSync(join(registeredDir, name), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as string),
  );
  const unique = [...new Set(registered)];
  const logFiles = readdirSafe(dir).filter((name) => name.endsWith(".log"));
  let lines = 0;
  const findings: SecretFinding[] = [];
  for (const name of logFiles) {
    const text = readFileSync(join(dir, name), "utf8");
    lines += text.split("\n").filter((line) => line !== "").length;
    for (const finding of findSecrets(text, unique)) findings.push({ ...finding, file: name });
  }
  return { files: logFiles.length, lines, findings };
}

function readdirSafe(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
