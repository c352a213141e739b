import { afterAll, beforeAll } from "vitest";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.ts";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "./test-platform.ts";

export interface MailingTestPlatform {
  readonly weft: TestPlatform;
  /** Where the platform sends its mail. */
  readonly smtp: SmtpSink;
}

/**
 * Starts an SMTP sink and a platform that mails through it before the file's tests, and stops both
 * after them: the set-up of the files whose people sign up or are invited by mail. Its fields can
 * be read from the file's tests and from the hooks registered after it.
 */
export function mailingTestPlatform(options: TestPlatformOptions = {}): MailingTestPlatform {
  let smtp: SmtpSink | undefined;
  let weft: TestPlatform | undefined;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    weft = await startTestPlatform({ ...options, env: { SMTP_URL: smtp.url, ...options.env } });
  });
  afterAll(async () => {
    await weft?.stop();
    await smtp?.close();
  });
  const started = () => {
    if (weft === undefined || smtp === undefined) throw new Error("the platform starts in the file's beforeAll");
    return { weft, smtp };
  };
  return {
    get weft() {
      return started().weft;
    },
    get smtp() {
      return started().smtp;
    },
  };
}
