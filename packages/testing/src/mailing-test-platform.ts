import { fileScoped } from "./file-scoped.ts";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.ts";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "./test-platform.ts";

export interface MailingTestPlatform {
  readonly weft: TestPlatform;
  /** Where the platform sends its mail. */
  readonly smtp: SmtpSink;
}

/**
 * Starts an SMTP sink and a platform that mails through it before the file's tests, and stops both
 * after them: the set-up of the files whose people sign up or are invited by mail.
 */
export function mailingTestPlatform(options: TestPlatformOptions = {}): MailingTestPlatform {
  return fileScoped<MailingTestPlatform>(
    ["weft", "smtp"],
    async () => {
      const smtp = await startSmtpSink();
      const weft = await startTestPlatform({ ...options, env: { SMTP_URL: smtp.url, ...options.env } }).catch(
        async (error: unknown) => {
          await smtp.close();
          throw error;
        },
      );
      return { weft, smtp };
    },
    async ({ weft, smtp }) => {
      await weft.stop();
      await smtp.close();
    },
  );
}
