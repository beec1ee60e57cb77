import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { getDomain as readDomain } from '#shared/domains/store.ts';
import { createDomain, getDomain } from '#shared/domains/service.ts';
import { localVerifier, sesVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { fakeDns } from './support.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DOMAIN_ID = /^dom_[0-9A-Za-z]{20}$/;

/** The records every domain gets beside its three DKIM CNAMEs. */
function adviceFor(domain: string) {
  return [
    { purpose: 'spf', type: 'TXT', name: domain, value: 'v=spf1 include:amazonses.com ~all', required: false },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain}`, value: 'v=DMARC1; p=none;', required: false },
  ];
}

function dkim(domain: string, tokens: string[]) {
  return tokens.map((token) => ({
    purpose: 'dkim',
    type: 'CNAME',
    name: `${token}._domainkey.${domain}`,
    value: `${token}.dkim.amazonses.com`,
    required: true,
  }));
}

/** The account's own proof: a TXT record at `_postlane.<domain>` with an unguessable token. */
function ownership(domain: string) {
  return {
    purpose: 'ownership',
    type: 'TXT',
    name: `_postlane.${domain}`,
    value: expect.stringMatching(/^postlane-verification=[0-9A-Za-z]{32}$/),
    required: true,
  };
}

/** The domain's ownership record, as the API lists it. */
function ownershipOf(domain: { records: { purpose: string; name: string; value: string }[] }) {
  return domain.records.find((record) => record.purpose === 'ownership')!;
}

/** SES answering identity commands by name: the emulator has none, so a stand-in plays AWS. */
function fakeSes(answers: Record<string, (input: unknown) => unknown>): Pick<SESv2Client, 'send'> & { asked: [string, unknown][] } {
  const asked: [string, unknown][] = [];
  return {
    asked,
    send: (async (command: { constructor: { name: string }; input: unknown }) => {
      const name = command.constructor.name;
      asked.push([name, command.input]);
      return answers[name]!(command.input);
    }) as unknown as SESv2Client['send'],
  };
}

describe('domains API', () => {
  it('adds a domain, lower-cased, with the DKIM, ownership, SPF and DMARC records to publish, pending', async () => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/domains', { key, body: { domain: ' Mail.Example.COM ' } });

    expect(response.status).toBe(201);
    const tokens = response.body.data.records
      .filter((record: { purpose: string }) => record.purpose === 'dkim')
      .map((record: { name: string }) => record.name.split('.')[0]);
    expect(tokens).toHaveLength(3);
    for (const token of tokens) expect(token).toMatch(/^[a-z0-9]{32}$/);
    expect(response.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(DOMAIN_ID),
        domain: 'mail.example.com',
        verified: false,
        status: 'pending',
        records: [...dkim('mail.example.com', tokens), ownership('mail.example.com'), ...adviceFor('mail.example.com')],
        createdAt: expect.stringMatching(ISO),
        verifiedAt: null,
      },
    });
  });

  it('refuses a domain the account already has with 409 DOMAIN_EXISTS', async () => {
    const { key } = await createTestAccount();
    await request('POST', '/api/domains', { key, body: { domain: 'example.com' } });

    const again = await request('POST', '/api/domains', { key, body: { domain: 'EXAMPLE.com' } });

    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: 'DOMAIN_EXISTS', message: 'The domain example.com is already added to this account', field: 'domain' });
  });

  it('adds a domain once when two requests race', async () => {
    const { key } = await createTestAccount();

    const answers = await Promise.all(Array.from({ length: 5 }, () => request('POST', '/api/domains', { key, body: { domain: 'race.example.com' } })));
    const listed = await request('GET', '/api/domains', { key });

    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(listed.body.pagination.total).toBe(1);
  });

  it.each([
    'example',
    'a_b.example.com',
    'https://example.com',
    'user@example.com',
    '-a.example.com',
    'a..example.com',
    'example.com.',
    `${'a'.repeat(64)}.com`,
  ])('refuses %s as a domain: 422 on field domain, as for anything but a host name', async (domain) => {
    const { key } = await createTestAccount();

    const answer = await request('POST', '/api/domains', { key, body: { domain } });

    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false, error: 'VALIDATION_ERROR', field: 'domain' });
  });

  it('refuses a missing or non-text domain and an unknown field, naming the field', async () => {
    const { key } = await createTestAccount();

    const missing = await request('POST', '/api/domains', { key, body: {} });
    const notText = await request('POST', '/api/domains', { key, body: { domain: 42 } });
    const unknown = await request('POST', '/api/domains', { key, body: { domain: 'example.com', dkim: true } });

    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'domain' });
    expect(notText.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'domain' });
    expect(unknown.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'dkim' });
  });

  it('gets a domain by id with its records; locally, adding and asking again verify nothing, and the sender check refuses it', async () => {
    const { accountId, key } = await createTestAccount();
    const created = (await request('POST', '/api/domains', { key, body: { domain: 'news.example.com' } })).body.data;

    const response = await request('GET', `/api/domains/${created.id}`, { key });
    const again = await request('GET', `/api/domains/${created.id}`, { key });
    const send = await request('POST', '/api/email/send', {
      key,
      body: { from: 'news@news.example.com', recipients: ['ana@example.org'], subject: 'Hi', content: '<p>Hi</p>' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: created });
    expect(again.body).toEqual({ success: true, data: created });
    expect(await readDomain(accountId, 'news.example.com')).toMatchObject({ verified: false, status: 'pending', domainId: created.id });
    expect(send.status).toBe(403);
    expect(send.body).toMatchObject({ error: 'SENDER_NOT_VERIFIED', field: 'from' });
  });

  it('lists domains newest first with pagination, without their records', async () => {
    const { key } = await createTestAccount();
    const ids: string[] = [];
    for (const domain of ['one.example.com', 'two.example.com', 'three.example.com']) {
      ids.push((await request('POST', '/api/domains', { key, body: { domain } })).body.data.id);
    }

    const first = await request('GET', '/api/domains?limit=2', { key });
    const second = await request('GET', '/api/domains?limit=2&page=2', { key });
    const past = await request('GET', '/api/domains?page=9', { key });
    const badLimit = await request('GET', '/api/domains?limit=0', { key });

    expect(first.status).toBe(200);
    expect(first.body.domains).toEqual([
      { id: ids[2], domain: 'three.example.com', verified: false, status: 'pending', createdAt: expect.stringMatching(ISO), verifiedAt: null },
      { id: ids[1], domain: 'two.example.com', verified: false, status: 'pending', createdAt: expect.stringMatching(ISO), verifiedAt: null },
    ]);
    expect(first.body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    expect(second.body.domains.map((domain: { id: string }) => domain.id)).toEqual([ids[0]]);
    expect(past.body).toEqual({ success: true, domains: [], pagination: { total: 3, page: 9, limit: 20, pages: 1 } });
    expect(badLimit.status).toBe(422);
    expect(badLimit.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
  });

  it("keeps each account's domains to itself", async () => {
    const owner = await createTestAccount();
    const other = await createTestAccount();
    const created = (await request('POST', '/api/domains', { key: owner.key, body: { domain: 'shared.example.com' } })).body.data;

    const peek = await request('GET', `/api/domains/${created.id}`, { key: other.key });
    const ownList = await request('GET', '/api/domains', { key: other.key });
    const sameName = await request('POST', '/api/domains', { key: other.key, body: { domain: 'shared.example.com' } });

    expect(peek.status).toBe(404);
    expect(peek.body).toEqual({ success: false, error: 'DOMAIN_NOT_FOUND', message: 'Domain not found' });
    expect(ownList.body.domains).toEqual([]);
    expect(sameName.status).toBe(201);
    expect(sameName.body.data.id).not.toBe(created.id);
  });

  it('answers unknown and malformed ids with 404 DOMAIN_NOT_FOUND', async () => {
    const { key } = await createTestAccount();

    const unknown = await request('GET', '/api/domains/dom_0000000000000000000', { key });
    const wellFormed = await request('GET', '/api/domains/dom_00000000000000000000', { key });
    const malformed = await request('GET', '/api/domains/example.com', { key });

    for (const answer of [unknown, wellFormed, malformed]) {
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: 'DOMAIN_NOT_FOUND' });
    }
  });

  it('is closed to sending-only keys', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });

    const answers = await Promise.all([
      request('POST', '/api/domains', { key, body: { domain: 'example.com' } }),
      request('GET', '/api/domains', { key }),
      request('DELETE', '/api/domains/dom_00000000000000000000', { key }),
    ]);

    expect(answers.map((answer) => [answer.status, answer.body.error])).toEqual([
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
    ]);
  });

  it('gives a domain added by the admin CLI an id the API finds', async () => {
    const { accountId, key } = await createTestAccount();
    await verifyDomain(accountId, 'cli.example.com', localVerifier);

    const listed = await request('GET', '/api/domains', { key });
    const fetched = await request('GET', `/api/domains/${listed.body.domains[0].id}`, { key });
    const duplicate = await request('POST', '/api/domains', { key, body: { domain: 'cli.example.com' } });

    expect(listed.body.domains).toEqual([expect.objectContaining({ domain: 'cli.example.com', verified: true, status: 'verified' })]);
    expect(fetched.body.data.records.filter((record: { purpose: string }) => record.purpose === 'dkim')).toHaveLength(3);
    expect(duplicate.status).toBe(409);
  });
});

describe('domains against SES', () => {
  const tokens = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];

  it('creates an Easy DKIM identity and publishes the tokens SES gives', async () => {
    const { accountId } = await createTestAccount();
    const ses = fakeSes({ CreateEmailIdentityCommand: () => ({ VerifiedForSendingStatus: false, DkimAttributes: { Tokens: tokens, Status: 'PENDING' } }) });

    const domain = await createDomain(accountId, { domain: 'ses.example.com' }, new Date(), sesVerifier(ses));

    expect(ses.asked).toEqual([['CreateEmailIdentityCommand', { EmailIdentity: 'ses.example.com' }]]);
    expect(domain).toMatchObject({
      verified: false,
      status: 'pending',
      records: [...dkim('ses.example.com', tokens), ownership('ses.example.com'), ...adviceFor('ses.example.com')],
    });
  });

  it("takes the existing identity when SES already has it, verified, and still waits for the account's own proof", async () => {
    const { accountId } = await createTestAccount();
    const ses = fakeSes({
      CreateEmailIdentityCommand: () => {
        throw Object.assign(new Error('exists'), { name: 'AlreadyExistsException' });
      },
      GetEmailIdentityCommand: () => ({ VerifiedForSendingStatus: true, DkimAttributes: { Tokens: tokens, Status: 'SUCCESS' } }),
    });

    const domain = await createDomain(accountId, { domain: 'known.example.com' }, new Date(), sesVerifier(ses));

    expect(ses.asked.map(([name]) => name)).toEqual(['CreateEmailIdentityCommand', 'GetEmailIdentityCommand']);
    expect(domain).toMatchObject({
      verified: false,
      status: 'pending',
      verifiedAt: null,
      records: [...dkim('known.example.com', tokens), ownership('known.example.com'), ...adviceFor('known.example.com')],
    });
  });

  it('asks SES again while the domain is pending, records a failure, and stops asking once it is verified', async () => {
    const { accountId } = await createTestAccount();
    let status = { VerifiedForSendingStatus: false, DkimAttributes: { Tokens: tokens, Status: 'FAILED' } };
    const ses = fakeSes({
      CreateEmailIdentityCommand: () => ({ VerifiedForSendingStatus: false, DkimAttributes: { Tokens: tokens, Status: 'PENDING' } }),
      GetEmailIdentityCommand: () => status,
    });
    const created = await createDomain(accountId, { domain: 'slow.example.com' }, new Date(), sesVerifier(ses));
    const published = fakeDns({ '_postlane.slow.example.com': [[ownershipOf(created).value]] });

    const failed = await getDomain(accountId, created.id, new Date(), sesVerifier(ses, published));
    status = { VerifiedForSendingStatus: true, DkimAttributes: { Tokens: tokens, Status: 'SUCCESS' } };
    const verified = await getDomain(accountId, created.id, new Date(), sesVerifier(ses, published));
    const later = await getDomain(accountId, created.id, new Date(), sesVerifier(ses, published));

    expect(failed).toMatchObject({ verified: false, status: 'failed' });
    expect(verified).toMatchObject({ verified: true, status: 'verified', verifiedAt: expect.stringMatching(ISO) });
    expect(later).toEqual(verified);
    expect(ses.asked.map(([name]) => name)).toEqual(['CreateEmailIdentityCommand', 'GetEmailIdentityCommand', 'GetEmailIdentityCommand']);
    expect(await readDomain(accountId, 'slow.example.com')).toMatchObject({ verified: true });
  });

  it('shows the last known state when the identity was removed from SES by hand', async () => {
    const { accountId } = await createTestAccount();
    const ses = fakeSes({
      CreateEmailIdentityCommand: () => ({ VerifiedForSendingStatus: false, DkimAttributes: { Tokens: tokens, Status: 'PENDING' } }),
      GetEmailIdentityCommand: () => {
        throw Object.assign(new Error('gone'), { name: 'NotFoundException' });
      },
    });
    const created = await createDomain(accountId, { domain: 'gone.example.com' }, new Date(), sesVerifier(ses));

    expect(await getDomain(accountId, created.id, new Date(), sesVerifier(ses))).toEqual(created);
  });
});
