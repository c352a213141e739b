import { claimCodeOf, decide, type SmtpSink, startSmtpSink, startTestPlatform, type TestPlatform } from "@weft/testing";

export interface PlatformWithMail {
  weft: TestPlatform;
  smtp: SmtpSink;
  stop(): Promise<void>;
}

/**
 * A started platform that sends its mail to a real SMTP listener. Its manual clock starts at the
 * real time, because the CLI (a separate process) reads the real clock.
 */
export async function startPlatformWithMail(): Promise<PlatformWithMail> {
  const smtp = await startSmtpSink();
  const weft = await startTestPlatform({ env: { SMTP_URL: smtp.url } });
  weft.clock.set(new Date());
  return {
    weft,
    smtp,
    stop: async () => {
      await weft.stop();
      await smtp.close();
    },
  };
}

/** Waits for the approval mail to `email`, approves in the "browser", and returns the code shown. */
export async function approveFromMail(smtp: SmtpSink, email: string): Promise<string> {
  while (!smtp.received.some((mail) => mail.to.includes(email))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const page = await decide(smtp.approvalLinkFor(email), "approve");
  return claimCodeOf(page.html);
}
