import { describe, expect, it } from 'vitest';
import { localVerifier, sesVerifier, verifyDomain, type TxtResolver } from '#shared/domains/verification.ts';
import { isDomainName } from '#shared/domains/schema.ts';
import { getDomain } from '#shared/domains/store.ts';
import { createTestAccount } from '../support/accounts.ts';
import { fakeDns, fakeSes, proofOf, sesSaying } from '../domains/support.ts';

describe('domain verification', () => {
  it("records a domain SES has verified as pending until the account's own TXT record is published", async () => {
    const { accountId } = await createTestAccount();
    const verifiedInSes = sesSaying(true);
    const nothingPublished = fakeDns();

    const first = await verifyDomain(accountId, 'ok.example.com', sesVerifier(verifiedInSes, nothingPublished));
    const published = fakeDns({ '_postlane.ok.example.com': [['v=spf1 -all'], [await proofOf(accountId, 'ok.example.com')]] });
    const second = await verifyDomain(accountId, 'ok.example.com', sesVerifier(verifiedInSes, published));

    expect(verifiedInSes.asked).toEqual([{ EmailIdentity: 'ok.example.com' }, { EmailIdentity: 'ok.example.com' }]);
    expect(nothingPublished.asked).toEqual(['_postlane.ok.example.com']);
    expect(first).toEqual({ domain: 'ok.example.com', verified: false });
    expect(second).toEqual({ domain: 'ok.example.com', verified: true });
    expect(await getDomain(accountId, 'ok.example.com')).toMatchObject({ verified: true, status: 'verified', verifiedAt: expect.any(String) });
  });

  it('needs SES to verify the identity too: a published TXT record alone verifies nothing, and DNS is not asked', async () => {
    const { accountId } = await createTestAccount();
    await verifyDomain(accountId, 'pending.example.com', sesVerifier(sesSaying(false), fakeDns()));
    const dns = fakeDns({ '_postlane.pending.example.com': [[await proofOf(accountId, 'pending.example.com')]] });

    const pending = await verifyDomain(accountId, 'pending.example.com', sesVerifier(sesSaying(false), dns));

    expect(pending).toEqual({ domain: 'pending.example.com', verified: false });
    expect(dns.asked).toEqual([]);
    expect(await getDomain(accountId, 'pending.example.com')).toMatchObject({ verified: false, status: 'pending' });
  });

  it("accepts only the account's own token, also from a record split into several strings", async () => {
    const owner = await createTestAccount();
    const other = await createTestAccount();
    const ses = sesSaying(true);
    await verifyDomain(owner.accountId, 'split.example.com', sesVerifier(ses, fakeDns()));
    await verifyDomain(other.accountId, 'split.example.com', sesVerifier(ses, fakeDns()));
    const ownerProof = await proofOf(owner.accountId, 'split.example.com');
    // DNS publishes the owner's proof, in two strings as a long TXT value may come, and a near miss of the other's.
    const dns = fakeDns({
      '_postlane.split.example.com': [[ownerProof.slice(0, 10), ownerProof.slice(10)], [`${await proofOf(other.accountId, 'split.example.com')}x`]],
    });

    const owners = await verifyDomain(owner.accountId, 'split.example.com', sesVerifier(ses, dns));
    const others = await verifyDomain(other.accountId, 'split.example.com', sesVerifier(ses, dns));

    expect(ownerProof).not.toBe(await proofOf(other.accountId, 'split.example.com'));
    expect(owners).toEqual({ domain: 'split.example.com', verified: true });
    expect(others).toEqual({ domain: 'split.example.com', verified: false });
  });

  it('raises a DNS failure other than "no such record" rather than taking it for an answer', async () => {
    const { accountId } = await createTestAccount();
    await verifyDomain(accountId, 'example.com', localVerifier);
    const failing: TxtResolver = async (name) => {
      throw Object.assign(new Error(`queryTxt ESERVFAIL ${name}`), { code: 'ESERVFAIL' });
    };

    await expect(verifyDomain(accountId, 'example.com', sesVerifier(sesSaying(true), failing))).rejects.toMatchObject({ code: 'ESERVFAIL' });
    expect(await getDomain(accountId, 'example.com')).toMatchObject({ verified: true });
  });

  it('takes a verified domain back when SES no longer verifies it', async () => {
    const { accountId } = await createTestAccount();
    await verifyDomain(accountId, 'example.com', localVerifier);

    await verifyDomain(accountId, 'example.com', sesVerifier(sesSaying(false), fakeDns()));

    const domain = await getDomain(accountId, 'example.com');
    expect(domain?.verified).toBe(false);
    expect(domain).not.toHaveProperty('verifiedAt');
  });

  it('reports an identity SES does not have as DOMAIN_NOT_FOUND, recording nothing', async () => {
    const { accountId } = await createTestAccount();
    const missing = fakeSes(async () => {
      throw Object.assign(new Error('Email identity nope.example.com does not exist.'), { name: 'NotFoundException' });
    });

    await expect(verifyDomain(accountId, 'nope.example.com', sesVerifier(missing))).rejects.toMatchObject({ code: 'DOMAIN_NOT_FOUND' });
    expect(await getDomain(accountId, 'nope.example.com')).toBeUndefined();
  });

  it('accepts host names and refuses anything else', () => {
    expect(['example.com', 'mail.example.co.uk', 'a-b.io', 'xn--bcher-kva.example'].filter(isDomainName)).toHaveLength(4);
    expect(['example', 'Example.com', '-a.com', 'a_b.com', 'a..com', 'a.com.', 'user@example.com', 'a.123'].filter(isDomainName)).toEqual([]);
  });
});
