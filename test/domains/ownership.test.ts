/**
 * A domain belongs to the account that proved it: SES identities are shared by
 * every account of the deployment, so adding a name another account verified
 * must not let an account send as it (issue 13, "Trust at the edges").
 */
import { describe, expect, it } from 'vitest';
import { getDomain } from '#shared/domains/service.ts';
import { insertDomain } from '#shared/domains/store.ts';
import { localVerifier, newDomainRecord, sesVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { createTestAccount, type TestAccount } from '../support/accounts.ts';
import { request, type ApiResponse } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { fakeDns, proofOf, sesSaying } from './support.ts';

/** One send from `from` on each endpoint a sender check guards: general, OTP and transactional. */
function sendFromEverywhere(key: string, from: string): Promise<ApiResponse[]> {
  const to = uniqueAddress();
  return Promise.all([
    request('POST', '/api/email/send', { key, body: { from, recipients: [to], subject: 'Hi', content: '<p>Hi</p>' } }),
    request('POST', '/api/otp/send', { key, body: { from, to, code: '123456' } }),
    request('POST', '/api/transactional/send', { key, body: { from, to, subject: 'Receipt', content: '<p>Paid</p>' } }),
  ]);
}

function expectRefused(responses: ApiResponse[]): void {
  for (const response of responses) {
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, error: 'SENDER_NOT_VERIFIED', message: expect.any(String), field: 'from' });
  }
}

async function addDomain(
  account: TestAccount,
  domain: string,
): Promise<{ id: string; verified: boolean; records: { purpose: string; type: string; name: string; value: string }[] }> {
  const response = await request('POST', '/api/domains', { key: account.key, body: { domain } });
  expect(response.status).toBe(201);
  return response.body.data;
}

describe('domains belong to the account that proved them', () => {
  it("refuses another account's sends from a domain one account verified, on every send endpoint", async () => {
    const owner = await createSender();
    const intruder = await createTestAccount();

    const added = await addDomain(intruder, owner.domain);
    const polled = await request('GET', `/api/domains/${added.id}`, { key: intruder.key });
    const refused = await sendFromEverywhere(intruder.key, owner.from);
    const ownerStillSends = await sendFromEverywhere(owner.key, owner.from);

    expect(added.verified).toBe(false);
    expect(polled.body.data).toMatchObject({ verified: false, status: 'pending' });
    expectRefused(refused);
    expect(ownerStillSends.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await storedEmails(owner.domain)).toHaveLength(3);
  });

  it("refuses them also when SES reads the shared identity as verified and only the owner's TXT record is published", async () => {
    const owner = await createSender();
    const intruder = await createTestAccount();
    const added = await addDomain(intruder, owner.domain);
    // Deployed, SES answers for the identity the owner verified; DNS has the owner's proof, not the intruder's.
    const deployed = sesVerifier(sesSaying(true), fakeDns({ [`_postlane.${owner.domain}`]: [[await proofOf(owner.accountId, owner.domain)]] }));

    const polled = await getDomain(intruder.accountId, added.id, new Date(), deployed);
    const rechecked = await verifyDomain(intruder.accountId, owner.domain, deployed);
    const shown = await request('GET', `/api/domains/${added.id}`, { key: intruder.key });
    const refused = await sendFromEverywhere(intruder.key, owner.from);

    expect(polled).toMatchObject({ verified: false, status: 'pending', verifiedAt: null });
    expect(rechecked).toEqual({ domain: owner.domain, verified: false });
    expect(shown.body.data).toMatchObject({ verified: false, status: 'pending' });
    expectRefused(refused);
    expect(await storedEmails(owner.domain)).toEqual([]);
  });

  it('verifies the second account with its own proof only, and then both send', async () => {
    const owner = await createSender();
    const second = await createTestAccount();
    const added = await addDomain(second, owner.domain);
    const name = `_postlane.${owner.domain}`;
    const ownerProof = await proofOf(owner.accountId, owner.domain);
    const secondProof = await proofOf(second.accountId, owner.domain);

    const withOwnersProof = await getDomain(second.accountId, added.id, new Date(), sesVerifier(sesSaying(true), fakeDns({ [name]: [[ownerProof]] })));
    const refused = await sendFromEverywhere(second.key, owner.from);
    const withItsOwn = await getDomain(
      second.accountId,
      added.id,
      new Date(),
      sesVerifier(sesSaying(true), fakeDns({ [name]: [[ownerProof], [secondProof]] })),
    );
    const accepted = await sendFromEverywhere(second.key, owner.from);
    const ownerSends = await sendFromEverywhere(owner.key, owner.from);

    expect(withOwnersProof).toMatchObject({ verified: false, status: 'pending' });
    expectRefused(refused);
    expect(withItsOwn).toMatchObject({ verified: true, status: 'verified' });
    expect(accepted.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(ownerSends.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await storedEmails(owner.domain)).toHaveLength(6);
  });

  it("lists the account's own ownership TXT record among the DNS records, a different token for each account", async () => {
    const first = await createTestAccount();
    const second = await createTestAccount();
    const domain = `o${randomBase62(10).toLowerCase()}.example.com`;

    const firstAdded = await addDomain(first, domain);
    const secondAdded = await addDomain(second, domain);
    const firstShown = await request('GET', `/api/domains/${firstAdded.id}`, { key: first.key });
    const proofs = [firstAdded, secondAdded].map((added) => added.records.filter((record) => record.purpose === 'ownership'));

    for (const [index, account] of [first, second].entries()) {
      expect(proofs[index]).toEqual([
        { purpose: 'ownership', type: 'TXT', name: `_postlane.${domain}`, value: await proofOf(account.accountId, domain), required: true },
      ]);
      expect(proofs[index]![0]!.value).toMatch(/^postlane-verification=[0-9A-Za-z]{32}$/);
    }
    expect(proofs[0]![0]!.value).not.toBe(proofs[1]![0]!.value);
    // The same proof every time it is shown: the account may have published it already.
    expect(firstShown.body.data.records).toEqual(firstAdded.records);
  });

  it('locally, verifies nothing on POST /api/domains and its polling; admin domain verify stands in for both proofs', async () => {
    const account = await createTestAccount();
    const domain = `l${randomBase62(10).toLowerCase()}.example.com`;
    const added = await addDomain(account, domain);

    const polled = await request('GET', `/api/domains/${added.id}`, { key: account.key });
    const refused = await sendFromEverywhere(account.key, `news@${domain}`);
    await verifyDomain(account.accountId, domain, localVerifier);
    const verified = await request('GET', `/api/domains/${added.id}`, { key: account.key });
    const accepted = await sendFromEverywhere(account.key, `news@${domain}`);

    expect(polled.body.data).toMatchObject({ verified: false, status: 'pending' });
    expectRefused(refused);
    expect(verified.body.data).toMatchObject({ id: added.id, verified: true, status: 'verified', records: added.records });
    expect(accepted.map((response) => response.status)).toEqual([200, 200, 200]);
  });

  it('takes a domain recorded verified before proofs existed for unverified, and gives it a proof of its own at its next check', async () => {
    const account = await createTestAccount();
    const domain = `v${randomBase62(10).toLowerCase()}.example.com`;
    // As SES's shared identity alone used to record it, for whichever account added the name.
    const { verificationToken: _none, ...legacy } = newDomainRecord(
      account.accountId,
      domain,
      { verified: true, status: 'verified', dkimTokens: [] },
      new Date(),
    );
    await insertDomain(legacy);

    const refused = await sendFromEverywhere(account.key, `news@${domain}`);
    const polled = await request('GET', `/api/domains/${legacy.domainId}`, { key: account.key });
    const again = await request('GET', `/api/domains/${legacy.domainId}`, { key: account.key });

    expectRefused(refused);
    expect(polled.body.data).toMatchObject({ verified: false, status: 'pending', verifiedAt: null });
    expect(polled.body.data.records).toContainEqual({
      purpose: 'ownership',
      type: 'TXT',
      name: `_postlane.${domain}`,
      value: await proofOf(account.accountId, domain),
      required: true,
    });
    expect(again.body.data.records).toEqual(polled.body.data.records);
  });
});
