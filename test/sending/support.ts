/**
 * Sending tests: an account with a verified sender domain of its own, and
 * the emails the SES emulator stored for it. The emulator is shared by every
 * test worker, so each account sends from a domain no other test uses and
 * reads back only what came from it.
 */
import { TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { expect, inject, vi } from 'vitest';
import { type OutgoingEmail, ses } from '#shared/sending/transport.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { RECIPIENT_SUPPRESSED } from '#shared/sending/service.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { createTestAccount, type TestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import type { Plan } from '#shared/accounts/plans.ts';

export interface Sender extends TestAccount {
  /** A verified domain only this test sends from: `s1a2b3c4d5.example.com`. */
  domain: string;
  /** `news@<domain>` */
  from: string;
  /** A test key (`svc_test_`) of the same account. */
  testKey: string;
}

export async function createSender(options: { plan?: Plan; quota?: number; permission?: 'full' | 'sending' } = {}): Promise<Sender> {
  const account = await createTestAccount(options);
  const domain = `s${randomBase62(10).toLowerCase()}.example.com`;
  await verifyDomain(account.accountId, domain, localVerifier);
  const testKey = await createApiKey({ accountId: account.accountId, env: 'test', permission: options.permission ?? 'full' });
  return { ...account, domain, from: `news@${domain}`, testKey: testKey.key };
}

export interface StoredEmail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { html?: string; text?: string };
  attachments: { filename: string; contentType: string; content: string; size: number }[];
  headers?: { name: string; value: string }[];
}

/** Every email the emulator stored whose sender is at `domain`, in the order sent; `endpoint`: an emulator of the test's own. */
export async function storedEmails(domain: string, endpoint = inject('sesEndpoint')): Promise<StoredEmail[]> {
  // Searched by the emulator (dev/local/ses.ts): the whole store is thousands of emails by the end of a run.
  const response = await fetch(`${endpoint}/store?from=${encodeURIComponent(domain)}`);
  return ((await response.json()) as { emails: StoredEmail[] }).emails;
}

/** A contact of an audience of its own, in `status` (any the API can set): its id. */
export async function addContact(key: string, email: string, status = 'subscribed'): Promise<string> {
  const audience = (await request('POST', '/api/audiences', { key, body: { name: `A ${email}` } })).body.data;
  const created = await request('POST', '/api/contacts', { key, body: { email, audienceId: audience.id } });
  if (status !== 'subscribed') await request('PATCH', `/api/contacts/${created.body.data.id}`, { key, body: { status } });
  return created.body.data.id;
}

/** A `failedEmails` item of a suppressed address: one message whatever the reason, so it says nothing about the contact. */
export function suppressedFailure(recipient: string) {
  return { recipient, error: RECIPIENT_SUPPRESSED.code, message: RECIPIENT_SUPPRESSED.message };
}

/** A recipient address unique to the calling test. */
export function uniqueAddress(name = 'user'): string {
  return `${name}.${randomBase62(8).toLowerCase()}@example.org`;
}

/** One unique address per name, typed by position: `const [ann, bob] = uniqueAddresses('ann', 'bob')`. */
export function uniqueAddresses<const Names extends readonly string[]>(...names: Names): { [K in keyof Names]: string } {
  return names.map((name) => uniqueAddress(name)) as { [K in keyof Names]: string };
}

/**
 * POST /api/email/send of a plain message ("Hi") from the sender's domain, for
 * tests about what happens around a send rather than its content:
 * `await sendPlain(sender, [ann, bob])`.
 */
export function sendPlain(sender: Pick<Sender, 'key' | 'from'>, recipients: string[]) {
  return request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients, subject: 'Hi', content: '<p>Hi</p>' } });
}

const TRACKING_ID = /^svc_\d{13}_[A-Za-z0-9]+$/;

/**
 * Asserts the 200 reply of a send, whole: `sent` in the order sent (a
 * `{ queued }` entry was handed to the retry worker), then the failures;
 * `recipientCount` is every recipient asked for unless said otherwise.
 */
export function expectSent(
  response: { status: number; body: unknown },
  expected: { message: string; sent: (string | { queued: string })[]; failed?: unknown[]; recipientCount?: number; emailsRemaining: number },
): void {
  const { message, sent, failed = [], emailsRemaining } = expected;
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    success: true,
    message,
    successfulEmails: sent.map((entry) =>
      typeof entry === 'string'
        ? { recipient: entry, trackingId: expect.stringMatching(TRACKING_ID) }
        : { recipient: entry.queued, trackingId: expect.stringMatching(TRACKING_ID), queued: true },
    ),
    failedEmails: failed,
    recipientCount: expected.recipientCount ?? sent.length + failed.length,
    emailsRemaining,
  });
}

/** Asserts `replay` is the idempotent replay of `first`: 200, marked replayed, with the very same body. */
export function expectReplayed(replay: { status: number; headers: Headers; body: unknown }, first: { body: unknown }): void {
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
}

/**
 * SES answering every message to `address` with the error `fault` makes (a
 * refusal, throttling), which the emulator cannot produce on demand; other
 * messages go through. Undone by `vi.restoreAllMocks()`.
 */
export function sesFailsFor(address: string, fault: () => Error): void {
  const original = ses.send.bind(ses);
  vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
    if (command.input.Destination?.ToAddresses?.[0] === address) throw fault();
    return original(command);
  }) as typeof ses.send);
}

/** SES's throttling for every message to `address`: `sesFailsFor` with TooManyRequests. */
export function throttleSesFor(address: string): void {
  sesFailsFor(address, () => new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} }));
}

/** A message as the transport takes it: one sender, one recipient, no cc, bcc, reply-to or attachments, unless `fields` say otherwise. */
export function outgoingEmail(fields: Partial<OutgoingEmail> = {}): OutgoingEmail {
  return {
    from: { address: 'a@example.com' },
    to: ['b@example.org'],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: 'S',
    html: 'h',
    text: 't',
    attachments: [],
    ...fields,
  };
}
