import type { Transporter } from "nodemailer";
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

/** The dev mailbox: its messages, newest first, and the key that opens it. */
export interface Outbox {
  list(): readonly OutboxMessage[];
  /** 32 random bytes, base64url, kept in the data dir: `/dev/mailbox?key=…`. */
  key: string;
}

/** Sends mail; resolves once the message is handed to the SMTP server, stored in the outbox, or dropped. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** The dev outbox; undefined when mail goes out over SMTP or is dropped. */
  outbox: Outbox | undefined;
}

/** The dev outbox keeps this many messages; it is a development aid, not a mail store. */
const outboxCapacity = 200;

function createOutboxMailer(from: string, key: string, clock: Clock, logger: Logger): Mailer {
  const messages: OutboxMessage[] = [];
  return {
    send: async (message) => {
      messages.unshift({ ...message, from, sentAt: clock.now() });
      messages.length = Math.min(messages.length, outboxCapacity);
      // Mail carries approval links and codes: whoever reads the log must not be able to approve,
      // so the log only says where the mail is.
      logger.info(
        { mail: { to: message.to, subject: message.subject } },
        "dev outbox: mail stored; read it at /dev/mailbox with the key printed at start-up",
      );
    },
    outbox: { list: () => messages, key },
  };
}

function createDroppingMailer(logger: Logger): Mailer {
  return {
    send: async (message) => {
      logger.warn(
        { mail: { to: message.to, subject: message.subject } },
        "mail dropped: no SMTP_URL is set and WEFT_DEV_MAILBOX=off",
      );
    },
    outbox: undefined,
  };
}

/** nodemailer is loaded with the first mail: most processes send none, and start without it. */
function createSmtpMailer(url: string, from: string): Mailer {
  let transport: Promise<Transporter> | undefined;
  return {
    send: async (message) => {
      transport ??= import("nodemailer").then(({ createTransport }) => createTransport(url));
      await (await transport).sendMail({ from, ...message });
    },
    outbox: undefined,
  };
}

export function createMailer(config: { mail: MailConfig; mailFrom: string }, clock: Clock, logger: Logger): Mailer {
  switch (config.mail.kind) {
    case "smtp":
      return createSmtpMailer(config.mail.url, config.mailFrom);
    case "outbox":
      return createOutboxMailer(config.mailFrom, config.mail.key, clock, logger);
    case "dropped":
      return createDroppingMailer(logger);
  }
}
