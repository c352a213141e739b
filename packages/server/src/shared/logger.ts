import { type DestinationStream, type LevelWithSilent, type Logger, pino } from "pino";
import { serializeError } from "./log-error.ts";

export type { Logger } from "pino";

/**
 * Keys whose values are secrets wherever they appear in a logged object. Redaction is a safety net:
 * code should not log secrets in the first place.
 */
const secretKeys = [
  "authorization",
  "cookie",
  "credential",
  "accessToken",
  "claim_token",
  "claimToken",
  "otp",
  "code",
  "assertion",
  "password",
  "secret",
  "token",
  "csrf",
  "secretKey",
];

const redactPaths = [
  ...secretKeys,
  ...secretKeys.map((key) => `*.${key}`),
  ...secretKeys.map((key) => `*.*.${key}`),
  'req.headers["x-hook-secret"]',
];

export interface LoggerOptions {
  level: LevelWithSilent;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: "weft" },
      redact: { paths: redactPaths, censor: "[redacted]" },
      // Every `{ err }` of every child logger goes through it: a database error's parameters never reach the log.
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
