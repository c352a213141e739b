import { createTransport } from "nodemailer";
import type { MailConfig } from "../config/config.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface OutboxMessage extends MailMessage {
  from: string;
  sentAt: Date;
}

/** Sends mail; resolves once the message is handed to the SMTP server or stored in the outbox. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** The dev outbox, newest first; undefined when mail really goes out over SMTP. */
  outbox: { list(): readonly OutboxMessage[] } | undefined;
}

/** The dev outbox keeps this many messages; it is a development aid, not a mail store. */
const outboxCapacity = 200;

function createOutboxMailer(from: string, clock: Clock, logger: Logger): Mailer {
  const messages: OutboxMessage[] = [];
  return {
    send: async (message) => {
      messages.unshift({ ...message, from, sentAt: clock.now() });
      messages.length = Math.min(messages.length, outboxCapacity);
      // The dev outbox exists so a developer can read the mail in the log or at /dev/mailbox.
      logger.info(
        { mail: { to: message.to, subject: message.subject, body: message.text } },
        "dev outbox: mail stored",
      );
    },
    outbox: { list: () => messages },
  };
}

function createSmtpMailer(url: string, from: string): Mailer {
  const transport = createTransport(url);
  return {
    send: async (message) => {
      await transport.sendMail({ from, ...message });
    },
    outbox: undefined,
  };
}

export function createMailer(config: { mail: MailConfig; mailFrom: string }, clock: Clock, logger: Logger): Mailer {
  return config.mail.kind === "smtp"
    ? createSmtpMailer(config.mail.url, config.mailFrom)
    : createOutboxMailer(config.mailFrom, clock, logger);
}
