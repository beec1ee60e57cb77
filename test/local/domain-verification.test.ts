import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { describe, expect, it } from 'vitest';
import { isDomainName, localVerifier, sesVerifier, verifyDomain } from '#shared/domain/domain-verification.ts';
import { getDomain } from '#shared/data/domains.ts';
import { createTestAccount } from '../support/accounts.ts';

/** SES answering GetEmailIdentity: the emulator has no identity commands, so a stand-in plays AWS. */
function fakeSes(answer: () => Promise<unknown>): Pick<SESv2Client, 'send'> & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    send: (async (command: { input: unknown }) => {
      asked.push(command.input);
      return answer();
    }) as unknown as SESv2Client['send'],
  };
}

describe('domain verification', () => {
  it('records what SES says about the identity', async () => {
    const { accountId } = await createTestAccount();
    const verifiedInSes = fakeSes(async () => ({ VerifiedForSendingStatus: true }));
    const pendingInSes = fakeSes(async () => ({ VerifiedForSendingStatus: false }));

    const verified = await verifyDomain(accountId, 'ok.example.com', sesVerifier(verifiedInSes));
    const pending = await verifyDomain(accountId, 'pending.example.com', sesVerifier(pendingInSes));

    expect(verifiedInSes.asked).toEqual([{ EmailIdentity: 'ok.example.com' }]);
    expect(verified).toEqual({ domain: 'ok.example.com', verified: true });
    expect(pending).toEqual({ domain: 'pending.example.com', verified: false });
    expect(await getDomain(accountId, 'pending.example.com')).toMatchObject({ verified: false });
  });

  it('takes a verified domain back when SES no longer verifies it', async () => {
    const { accountId } = await createTestAccount();
    await verifyDomain(accountId, 'example.com', localVerifier);

    await verifyDomain(accountId, 'example.com', sesVerifier(fakeSes(async () => ({ VerifiedForSendingStatus: false }))));

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
