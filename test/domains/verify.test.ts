/**
 * POST /api/domains/:id/verify (issue 30): checks SES's identity and the
 * account's ownership record now, whatever the stored state, and records what
 * they say, with one `domain.verified` event each time the domain becomes
 * verified. SES and DNS are stand-ins (./support.ts): the emulator has no
 * identities and tests own no DNS zone.
 */
import { describe, expect, it } from 'vitest';
import { createDomain, verifyDomainNow } from '#shared/domains/service.ts';
import { listEvents } from '#shared/events/service.ts';
import { sesVerifier } from '#shared/domains/verification.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { createSender } from '../sending/support.ts';
import { fakeDns, fakeSes, proofOf, uniqueDomain } from './support.ts';

const verify = (key: string, id: string) => request('POST', `/api/domains/${id}/verify`, { key });

describe('POST /api/domains/:id/verify', () => {
  it('answers the domain as checked now; locally a new domain stays pending and one the operator verified stays verified', async () => {
    const sender = await createSender();
    const pending = (await request('POST', '/api/domains', { key: sender.key, body: { domain: uniqueDomain() } })).body.data;
    const verified = (await request('GET', '/api/domains', { key: sender.key })).body.domains.find(
      (domain: { domain: string }) => domain.domain === sender.domain,
    );

    const [checkedPending, checkedVerified] = await Promise.all([verify(sender.key, pending.id), verify(sender.key, verified.id)]);
    const send = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: 'ada@example.org', subject: 'Hi', content: '<p>Hi</p>' },
    });

    expect(checkedPending.status).toBe(200);
    expect(checkedPending.body.data).toEqual(pending);
    expect(checkedVerified.body.data).toMatchObject({ id: verified.id, verified: true, status: 'verified' });
    expect(send.status).toBe(200);
  });

  it("answers 404 DOMAIN_NOT_FOUND for an unknown, malformed or another account's id, and 403 to a sending key", async () => {
    const [owner, other] = await Promise.all([createSender(), createTestAccount()]);
    const sending = await createTestAccount({ permission: 'sending' });
    const domains = (await request('GET', '/api/domains', { key: owner.key })).body.domains;

    const answers = await Promise.all([
      verify(owner.key, 'dom_00000000000000000000'),
      verify(owner.key, 'nonsense'),
      verify(other.key, domains[0].id),
      verify(sending.key, domains[0].id),
    ]);

    expect(answers.map((response) => [response.status, response.body.error])).toEqual([
      [404, 'DOMAIN_NOT_FOUND'],
      [404, 'DOMAIN_NOT_FOUND'],
      [404, 'DOMAIN_NOT_FOUND'],
      [403, 'FORBIDDEN'],
    ]);
  });

  it('verifies once both proofs are there, recording domain.verified once; a verified domain whose DKIM is gone goes back to pending', async () => {
    const { accountId, keyId } = await createTestAccount();
    const name = uniqueDomain();
    let identity = { VerifiedForSendingStatus: false, DkimAttributes: { Tokens: ['t1', 't2', 't3'], Status: 'PENDING' } };
    const ses = fakeSes(async () => identity);
    const added = await createDomain(accountId, { domain: name }, new Date(), sesVerifier(ses));
    const dns = fakeDns({ [`_postlane.${name}`]: [[await proofOf(accountId, name)]] });
    const actor = { type: 'key' as const, id: keyId };
    const check = () => verifyDomainNow(accountId, added.id, new Date(), sesVerifier(ses, dns), actor);

    const before = await check();
    identity = { VerifiedForSendingStatus: true, DkimAttributes: { Tokens: ['t1', 't2', 't3'], Status: 'SUCCESS' } };
    const [first, again] = [await check(), await check()];
    identity = { VerifiedForSendingStatus: false, DkimAttributes: { Tokens: ['t1', 't2', 't3'], Status: 'FAILED' } };
    const lost = await check();
    const { events } = await listEvents(accountId, { type: 'domain.verified', limit: 10 }, Date.now());

    expect(before).toMatchObject({ verified: false, status: 'pending' });
    expect(first).toMatchObject({ verified: true, status: 'verified', verifiedAt: expect.any(String) });
    expect(again).toEqual(first);
    expect(lost).toMatchObject({ verified: false, status: 'failed', verifiedAt: null });
    expect(events).toEqual([expect.objectContaining({ data: { domainId: added.id, domain: name, actor } })]);
  });
});
