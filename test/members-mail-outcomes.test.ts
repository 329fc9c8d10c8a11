import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';
import { PASSWORD } from './support/session.js';

// An invitation's answer with a mail server that is slow or refuses (docs/organization-api.md, "Members and
// invitations"): the link is always in the answer, the answer waits for the mail at most `answerWithinMs`, and
// says what became of the email (sent / queued / failed). Real SMTP servers (smtp-server) on loopback.

/** Short, for the servers that hold the message until the test lets it go. */
const ANSWER_WITHIN_MS = 300;

interface Created {
  token: string;
  url: string;
  email: string;
  emailStatus: string;
  emailSent: boolean;
}

interface World {
  smtp: SMTPServer;
  server: TestServer;
  org: TestOrganization;
  inbox: ParsedMail[];
  lines: string[];
}

/** A Cadre mailing through an SMTP server with these handlers (each world its own server and database). */
async function world(
  handlers: (inbox: ParsedMail[]) => Partial<SMTPServerOptions>,
  answerWithinMs?: number,
): Promise<World> {
  const inbox: ParsedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          inbox.push(mail);
          callback();
        })
        .catch(callback);
    },
    ...handlers(inbox),
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  const { lines, logger } = captureLogs();
  const server = await startServer({
    logger,
    smtp: {
      url: `smtp://127.0.0.1:${port}`,
      from: 'Cadre <cadre@example.test>',
      ...(answerWithinMs === undefined ? {} : { answerWithinMs }),
    },
  });
  const org = await createOrganization(server, 'team');
  return { smtp, server, org, inbox, lines };
}

async function close(w: World | undefined) {
  if (!w) return;
  await w.server.close();
  await new Promise<void>((resolve) => w.smtp.close(() => resolve()));
}

async function invite(w: World, address: string): Promise<Created> {
  const res = await w.server.request<{ data: Created }>(
    'POST',
    `/api/v1/organizations/${w.org.slug}/invitations`,
    { key: w.org.ownerKey, body: { email: address, role: 'member' } },
  );
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.url).toContain(res.body.data.token);
  return res.body.data;
}

/** The link in the answer is the one that works, whatever became of the email. */
async function expectLinkWorks(w: World, created: Created) {
  const accepted = await w.server.request('POST', `/auth/invitations/${created.token}/accept`, {
    body: { name: 'Ada', password: PASSWORD },
  });
  expect(accepted.status, accepted.text).toBe(200);
}

const MAIL_WARNING = 'an invitation email could not be sent';

describe('a slow mail server', () => {
  let w: World | undefined;
  /** Lets the held message through (the server answers its DATA then). */
  const held: Array<() => void> = [];
  beforeAll(async () => {
    w = await world(
      (inbox) => ({
        onData(stream, _session, callback) {
          simpleParser(stream)
            .then((mail) => {
              held.push(() => {
                inbox.push(mail);
                callback();
              });
            })
            .catch(callback);
        },
      }),
      ANSWER_WITHIN_MS,
    );
  });
  afterAll(() => close(w));

  it('the answer does not wait for it: 201 with the link and emailStatus queued; the mail arrives later', async () => {
    const created = await invite(w!, 'slow@people.test');
    expect(created).toMatchObject({ emailStatus: 'queued', emailSent: false });
    // The message was still with the server when the answer left; now it lets it through.
    await expect.poll(() => held.length).toBe(1);
    expect(w!.inbox).toHaveLength(0);
    held.shift()!();
    await expect.poll(() => w!.inbox.length).toBe(1);
    expect(w!.inbox[0]!.text).toContain('/invitations/inv_');
    expect(w!.inbox[0]!.text).not.toContain(created.token);
    expect(w!.lines.some((line) => line.includes(MAIL_WARNING))).toBe(false);
    await expectLinkWorks(w!, created);
  });
});

describe('a mail server that refuses', () => {
  let w: World | undefined;
  beforeAll(async () => {
    w = await world(() => ({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('No such mailbox here'), { responseCode: 550 }));
      },
    }));
  });
  afterAll(() => close(w));

  it('201 with the link and emailStatus failed, a warning in the log; the link works', async () => {
    const created = await invite(w!, 'refused@people.test');
    expect(created).toMatchObject({ emailStatus: 'failed', emailSent: false });
    expect(w!.lines.some((line) => line.includes(MAIL_WARNING) && line.includes('No such mailbox'))).toBe(
      true,
    );
    expect(w!.inbox).toEqual([]);
    await expectLinkWorks(w!, created);
  });
});

describe('a mail server that is slow and then refuses', () => {
  let w: World | undefined;
  const held: Array<() => void> = [];
  beforeAll(async () => {
    w = await world(
      () => ({
        onRcptTo(_address, _session, callback) {
          held.push(() => callback(Object.assign(new Error('Mailbox busy, go away'), { responseCode: 550 })));
        },
      }),
      ANSWER_WITHIN_MS,
    );
  });
  afterAll(() => close(w));

  it('queued in the answer; the failure that comes after it is logged as a warning', async () => {
    const created = await invite(w!, 'late@people.test');
    expect(created).toMatchObject({ emailStatus: 'queued', emailSent: false });
    await expect.poll(() => held.length).toBe(1);
    expect(w!.lines.some((line) => line.includes(MAIL_WARNING))).toBe(false);
    held.shift()!();
    await expect
      .poll(() => w!.lines.some((line) => line.includes(MAIL_WARNING) && line.includes('Mailbox busy')))
      .toBe(true);
    await expectLinkWorks(w!, created);
  });
});

describe('a mail server that answers at once', () => {
  let w: World | undefined;
  beforeAll(async () => {
    // The default deadline (5 s): a prompt server on a busy machine still answers within it.
    w = await world(() => ({}));
  });
  afterAll(() => close(w));

  it('emailStatus sent (and emailSent true), the mail in the inbox', async () => {
    const created = await invite(w!, 'prompt@people.test');
    expect(created).toMatchObject({ emailStatus: 'sent', emailSent: true });
    // The mail carries the mailed link, whose token is its own (never the inviter's copy).
    const mail = w!.inbox.find((message) => (message.to as { text: string }).text === 'prompt@people.test');
    expect(mail?.text).toMatch(/\/invitations\/inv_[0-9A-Za-z]{43}/);
    expect(mail?.text).not.toContain(created.token);
  });
});
