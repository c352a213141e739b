import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  /** The raw message with quoted-printable soft line breaks undone. */
  raw: string;
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** The approval link (an agent's, or an OAuth sign-in's) of the newest mail to `to`. */
  approvalLinkFor(to: string): string;
  close(): Promise<void>;
}

/** A real SMTP listener on a free local port that keeps every message it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks)
          .toString("utf8")
          .replace(/=\r?\n/g, "")
          .replace(/=3D/g, "=");
        received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    approvalLinkFor: (to) => {
      const mail = received.findLast((message) => message.to.includes(to));
      if (mail === undefined) throw new Error(`no mail to ${to}`);
      const links = new Set(
        mail.raw.match(
          /https?:\/\/[^\s"<>]+\/(?:agent\/auth|oauth2|studio\/api\/sign-in)\/approve\?token=apv_[A-Za-z0-9_-]{43}/g,
        ) ?? [],
      );
      if (links.size !== 1) throw new Error(`expected one approval link in the mail, found ${links.size}`);
      return [...links][0] as string;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
