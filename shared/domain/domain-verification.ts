/**
 * Whether an account may send from a domain. Deployed, SES's own identity
 * decides: creating it gives the DKIM tokens to publish, and SES verifies the
 * domain once it sees them in DNS. Locally there is no SES identity to ask (the
 * emulator has no identity commands), so the local verifier makes up stable
 * tokens and vouches for any domain whenever it is asked.
 */
import { createHash } from 'node:crypto';
import { CreateEmailIdentityCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#shared/config.ts';
import { insertDomain, saveDomainState, type DomainRecord, type DomainState } from '#shared/data/domains.ts';
import { ConflictError, NotFoundError } from '#shared/errors.ts';
import { newId } from '#shared/ids.ts';

export interface DomainVerifier {
  /** Creates the sending identity, or finds the one that exists, and says where it stands. */
  createIdentity(domain: string): Promise<DomainState>;
  /** Where the identity stands now; DOMAIN_NOT_FOUND when there is none. */
  readIdentity(domain: string): Promise<DomainState>;
}

/** Three tokens shaped like SES's (32 lower-case characters), the same for a domain every time. */
function localDkimTokens(domain: string): string[] {
  return [1, 2, 3].map((n) => createHash('sha256').update(`${domain}#${n}`).digest('hex').slice(0, 32));
}

/** New identities start pending, as in SES; asking again finds them verified, as if DNS were already in place. */
export const localVerifier: DomainVerifier = {
  createIdentity: async (domain) => ({ verified: false, status: 'pending', dkimTokens: localDkimTokens(domain) }),
  readIdentity: async (domain) => ({ verified: true, status: 'verified', dkimTokens: localDkimTokens(domain) }),
};

type SesIdentity = { VerifiedForSendingStatus?: boolean; DkimAttributes?: { Tokens?: string[]; Status?: string } };

function stateOf(identity: SesIdentity): DomainState {
  const verified = identity.VerifiedForSendingStatus === true;
  return {
    verified,
    status: verified ? 'verified' : identity.DkimAttributes?.Status === 'FAILED' ? 'failed' : 'pending',
    dkimTokens: identity.DkimAttributes?.Tokens ?? [],
  };
}

/** Easy DKIM identities in the configured region (CreateEmailIdentity, GetEmailIdentity). */
export function sesVerifier(client?: Pick<SESv2Client, 'send'>): DomainVerifier {
  // Imported statically, two commands by name: `import()` of the package would bundle all of its 100-odd operations.
  let ses = client;
  const sender = () => (ses ??= new SESv2Client({ region: config.AWS_REGION }));
  const readIdentity = async (domain: string): Promise<DomainState> => {
    try {
      return stateOf(await sender().send(new GetEmailIdentityCommand({ EmailIdentity: domain })));
    } catch (error) {
      if ((error as Error).name === 'NotFoundException') {
        throw new NotFoundError('DOMAIN_NOT_FOUND', `SES in ${config.AWS_REGION} has no identity ${domain}; create it there first`);
      }
      throw error;
    }
  };
  return {
    readIdentity,
    async createIdentity(domain) {
      try {
        return stateOf(await sender().send(new CreateEmailIdentityCommand({ EmailIdentity: domain })));
      } catch (error) {
        // Created before (by the operator, or an earlier attempt): its tokens stay the same.
        if ((error as Error).name === 'AlreadyExistsException') return readIdentity(domain);
        throw error;
      }
    },
  };
}

/** The verifier for API requests: SES when deployed, the local one beside the SES emulator. */
export function configuredVerifier(): DomainVerifier {
  return config.SES_ENDPOINT ? localVerifier : sesVerifier();
}

/** `example.com`, `mail.example.co.uk`: lower-case labels of letters, digits and inner hyphens, and a dot. */
export function isDomainName(value: string): boolean {
  return value.length <= 253 && /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(value);
}

/** A new domain of the account, recorded with what the identity says about it. */
export function newDomainRecord(accountId: string, domain: string, state: DomainState, now: Date): DomainRecord {
  return {
    domainId: newId('dom', now.getTime()),
    accountId,
    domain,
    ...state,
    createdAt: now.toISOString(),
    ...(state.verified ? { verifiedAt: now.toISOString() } : {}),
  };
}

/**
 * Asks the verifier about the domain and records the answer on the account,
 * adding the domain when the account does not have it yet (the admin CLI's
 * `domain verify`). Nothing is recorded when the identity does not exist.
 */
export async function verifyDomain(
  accountId: string,
  domain: string,
  verifier: DomainVerifier,
  now = new Date(),
): Promise<{ domain: string; verified: boolean }> {
  const state = await verifier.readIdentity(domain);
  let record = await saveDomainState(accountId, domain, state, now);
  if (!record) {
    record = newDomainRecord(accountId, domain, state, now);
    try {
      await insertDomain(record);
    } catch (error) {
      // Added by someone else between the two writes: record the answer on theirs.
      if (!(error instanceof ConflictError && error.code === 'DOMAIN_EXISTS')) throw error;
      record = (await saveDomainState(accountId, domain, state, now)) ?? record;
    }
  }
  return { domain: record.domain, verified: record.verified };
}
