import { createTransport } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail (CADRE_SMTP_URL); without one, nothing is sent and the inviter copies the link. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface SmtpOptions {
  /** `smtp://user:pass@host:port` or `smtps://…` (nodemailer's connection URL). */
  url: string;
  /** The From header, e.g. `Cadre <cadre@example.com>`. */
  from: string;
}

/** A nodemailer transport on the SMTP server of `url`; one connection per message, bounded in time. */
export function createSmtpMailer({ url, from }: SmtpOptions): Mailer {
  const transport = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
