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
  /**
   * How long the answer to an invitation waits for the SMTP server (default 5 s): past it, the answer says
   * `queued` and the send goes on in the background (bounded by the transport's own timeouts below).
   */
  answerWithinMs?: number;
}

export const DEFAULT_MAIL_ANSWER_MS = 5_000;

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

/** What became of an invitation's email by the time the answer left (docs/organization-api.md). */
export type MailStatus = 'sent' | 'queued' | 'failed' | 'not_configured';

/**
 * Sends, waiting at most `withinMs` for the outcome: `sent`, `failed` (reported to `onError`), or `queued`
 * when the server is still busy with it, in which case a later failure is reported to `onError` and a later
 * success to `onLateSend`. Never throws: nothing the mail does may cost the caller the answer.
 */
export async function sendWithin(
  mailer: Mailer,
  message: MailMessage,
  withinMs: number,
  report: { onError: (error: unknown) => void; onLateSend: () => void },
): Promise<MailStatus> {
  const safely = (work: () => void) => {
    try {
      work();
    } catch {
      // A reporter that throws (a closed logger) must not turn into an unhandled rejection.
    }
  };
  let answered = false;
  const delivery = mailer.send(message).then(
    (): MailStatus => {
      if (answered) safely(report.onLateSend);
      return 'sent';
    },
    (error: unknown): MailStatus => {
      safely(() => report.onError(error));
      return 'failed';
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<MailStatus>((resolve) => {
    timer = setTimeout(() => resolve('queued'), withinMs);
  });
  const status = await Promise.race([delivery, deadline]);
  clearTimeout(timer);
  answered = true;
  return status;
}
