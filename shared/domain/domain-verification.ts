/**
 * Whether an account may send from a domain. Deployed, SES's own verification
 * status decides; locally there is no SES identity to ask (the emulator has no
 * identity commands), so the local verifier vouches for any domain.
 */
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#shared/config.ts';
import { saveDomainStatus } from '#shared/data/domains.ts';
import { NotFoundError } from '#shared/errors.ts';

export interface DomainVerifier {
  isVerified(domain: string): Promise<boolean>;
}

export const localVerifier: DomainVerifier = {
  isVerified: async () => true,
};

/** Reads the SES identity's `VerifiedForSendingStatus` in the configured region. */
export function sesVerifier(client?: Pick<SESv2Client, 'send'>): DomainVerifier {
  return {
    async isVerified(domain) {
      // Loaded on use: local runs never need the SES client.
      const ses = await import('@aws-sdk/client-sesv2');
      const sender = client ?? new ses.SESv2Client({ region: config.AWS_REGION });
      try {
        const identity = await sender.send(new ses.GetEmailIdentityCommand({ EmailIdentity: domain }));
        return identity.VerifiedForSendingStatus === true;
      } catch (error) {
        if ((error as Error).name === 'NotFoundException') {
          throw new NotFoundError('DOMAIN_NOT_FOUND', `SES in ${config.AWS_REGION} has no identity ${domain}; create it there first`);
        }
        throw error;
      }
    },
  };
}

/** `example.com`, `mail.example.co.uk`: lower-case labels of letters, digits and inner hyphens, and a dot. */
export function isDomainName(value: string): boolean {
  return value.length <= 253 && /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(value);
}

/** Asks the verifier and records the answer on the account's domain. */
export async function verifyDomain(
  accountId: string,
  domain: string,
  verifier: DomainVerifier,
  now = new Date(),
): Promise<{ domain: string; verified: boolean }> {
  const verified = await verifier.isVerified(domain);
  const record = await saveDomainStatus(accountId, domain, verified, now);
  return { domain: record.domain, verified: record.verified };
}
