/**
 * Whether an account may send from a domain. Deployed, two proofs decide, both
 * needed: SES's identity for the domain is verified (creating it gives the DKIM
 * tokens to publish; SES verifies it once it sees them in DNS), and the
 * account's own TXT record is published. SES identities belong to the AWS
 * account, so every Postlane account that adds a domain shares one identity:
 * without the account's own record, whoever added a domain another account had
 * verified could send as it. Locally there is neither SES identity nor DNS to
 * ask (the emulator has no identity commands): the local verifier, used by
 * `admin domain verify`, vouches for both, and API requests verify nothing.
 */
import { createHash } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { CreateEmailIdentityCommand, DeleteEmailIdentityCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#shared/platform/config.ts';
import { getDomain, insertDomain, saveDomainState, type DomainRecord, type DomainState } from './store.ts';
import { jitteredBackoff, sleep } from '#shared/platform/dynamodb/client.ts';
import { localRegion } from '#shared/platform/dynamodb/regions.ts';
import { abandonIdentityDeletion, endIdentityDeletion, markIdentityCreated, releaseIdentityHold, takeIdentityHold } from './ses-identity-store.ts';
import { ConflictError, NotFoundError } from '#shared/platform/errors.ts';
import { newId, randomBase62 } from '#shared/platform/ids.ts';
import { log } from '#shared/platform/log.ts';
import { OPERATOR, type Actor } from '#shared/events/service.ts';
import { domainEvents, newDomainEvents } from './audit-events.ts';

export interface DomainVerifier {
  /**
   * Creates the sending identity, or finds the one that exists, and says where
   * it stands: never verified, as no account can have published a proof it is
   * only now being given. `created`: this call made it (it did not exist).
   */
  createIdentity(domain: string): Promise<{ state: DomainState; created: boolean }>;
  /** Where the domain stands for the account whose proof is `token`; DOMAIN_NOT_FOUND when SES has no identity. */
  readIdentity(domain: string, token: string): Promise<DomainState>;
  /** Deletes the sending identity; one already gone is no failure. */
  deleteIdentity(domain: string): Promise<void>;
}

/** Looks up a name's TXT records as node:dns does: each record in its character-strings. */
export type TxtResolver = (name: string) => Promise<string[][]>;

let resolver: Resolver | undefined;
// The system's resolvers, bounded: c-ares's defaults retry for most of a minute, longer than an API request may take.
const systemResolveTxt: TxtResolver = (name) => (resolver ??= new Resolver({ timeout: 2_000, tries: 2 })).resolveTxt(name);

/**
 * The account's proof of ownership, `_postlane.example.com TXT
 * "postlane-verification=<token>"`: a name of its own, so it sits beside SPF
 * and other accounts' proofs without touching them.
 */
export function ownershipRecord(domain: string, token: string): { name: string; value: string } {
  return { name: `_postlane.${domain}`, value: `postlane-verification=${token}` };
}

/** 32 random base62 characters (about 190 bits): no other account's record can match it, and nobody can publish it before the account is shown it. */
export function newVerificationToken(): string {
  return randomBase62(32);
}

/** Three tokens shaped like SES's (32 lower-case characters), the same for a domain every time. */
function localDkimTokens(domain: string): string[] {
  return [1, 2, 3].map((n) => createHash('sha256').update(`${domain}#${n}`).digest('hex').slice(0, 32));
}

const pendingLocally = async (domain: string): Promise<DomainState> => ({ verified: false, status: 'pending', dkimTokens: localDkimTokens(domain) });

/**
 * Locally an identity is notional: each creation counts as made by Postlane,
 * so the holds and the deletion of the last one run as deployed.
 */
const createdLocally = async (domain: string) => ({ state: await pendingLocally(domain), created: true });
const nothingToDelete = async () => {};

/** `admin domain verify` and the seed, locally: new identities start pending, as in SES; asking finds them verified, as if both proofs were in DNS. */
export const localVerifier: DomainVerifier = {
  createIdentity: createdLocally,
  readIdentity: async (domain) => ({ verified: true, status: 'verified', dkimTokens: localDkimTokens(domain) }),
  deleteIdentity: nothingToDelete,
};

/**
 * API requests beside the emulator: there is no identity nor DNS to read, so
 * asking finds nothing to go by and the stored state stands (as for an
 * identity removed from SES by hand): a new domain stays pending until the
 * operator vouches for it, and one the operator verified stays verified
 * however often it is checked.
 */
const localApiVerifier: DomainVerifier = {
  createIdentity: createdLocally,
  readIdentity: async (domain) => {
    throw new NotFoundError('DOMAIN_NOT_FOUND', `No SES identity ${domain} beside the emulator; admin domain verify vouches for it`);
  },
  deleteIdentity: nothingToDelete,
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

/** What SES's answer means for one account: verified only with its own proof too, which alone leaves the domain pending. */
function withProof(identity: DomainState, proven: boolean): DomainState {
  if (!identity.verified || proven) return identity;
  return { ...identity, verified: false, status: 'pending' };
}

// No such name, or the name has no TXT records: nothing published yet. Other failures (SERVFAIL, timeouts) are raised, not taken for an answer.
const NOTHING_PUBLISHED = new Set(['ENOTFOUND', 'ENODATA']);

async function proofPublished(resolve: TxtResolver, domain: string, token: string): Promise<boolean> {
  const { name, value } = ownershipRecord(domain, token);
  try {
    // A record longer than 255 characters comes in several strings, one value once joined (RFC 7208, 3.3).
    return (await resolve(name)).some((strings) => strings.join('') === value);
  } catch (error) {
    if (NOTHING_PUBLISHED.has((error as NodeJS.ErrnoException).code ?? '')) return false;
    throw error;
  }
}

/**
 * Easy DKIM identities in the configured region (CreateEmailIdentity,
 * GetEmailIdentity, DeleteEmailIdentity) and the account's TXT proof, read from DNS once SES has
 * verified the identity. Tests give the SES client and the resolver.
 */
export function sesVerifier(client?: Pick<SESv2Client, 'send'>, resolve: TxtResolver = systemResolveTxt): DomainVerifier {
  // Imported statically, three commands by name: `import()` of the package would bundle all of its 100-odd operations.
  let ses = client;
  const sender = () => (ses ??= new SESv2Client({ region: config.AWS_REGION }));
  const readSes = async (domain: string): Promise<DomainState> => {
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
    async readIdentity(domain, token) {
      const identity = await readSes(domain);
      return withProof(identity, identity.verified && (await proofPublished(resolve, domain, token)));
    },
    async createIdentity(domain) {
      try {
        return { state: withProof(stateOf(await sender().send(new CreateEmailIdentityCommand({ EmailIdentity: domain }))), false), created: true };
      } catch (error) {
        // Created before (by the operator, another account, or an earlier attempt): its tokens stay the same.
        if ((error as Error).name === 'AlreadyExistsException') return { state: withProof(await readSes(domain), false), created: false };
        throw error;
      }
    },
    async deleteIdentity(domain) {
      try {
        await sender().send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
      } catch (error) {
        if ((error as Error).name !== 'NotFoundException') throw error;
      }
    },
  };
}

/** The verifier for API requests: SES and DNS when deployed; beside the SES emulator, one that verifies nothing. */
export function configuredVerifier(): DomainVerifier {
  return config.SES_ENDPOINT ? localApiVerifier : sesVerifier();
}

/**
 * A new domain of the account, recorded with what the identity says about it,
 * the account's own proof to publish, and the region whose identity it holds.
 */
export function newDomainRecord(
  accountId: string,
  domain: string,
  state: DomainState,
  now: Date,
  verificationToken = newVerificationToken(),
  identityRegion = localRegion(),
): DomainRecord {
  return {
    domainId: newId('dom', now.getTime()),
    accountId,
    domain,
    ...state,
    verificationToken,
    createdAt: now.toISOString(),
    ...(state.verified ? { verifiedAt: now.toISOString() } : {}),
    identityRegion,
  };
}

/** Tries to take a hold while the identity's deletion runs (one SES call), about 5 s in all, before 409 CONFLICT. */
const HOLD_ATTEMPTS = 10;

/**
 * Runs `use` holding the domain's SES identity in this region, so that no
 * other account's deletion removes it meanwhile, nor after `use` has recorded
 * the domain (with `identityRegion` this region). When `use` fails the hold is
 * handed back, deleting an identity it alone had made: a refused addition
 * (DOMAIN_EXISTS, DOMAIN_LIMIT_REACHED) leaves no identity behind.
 */
export async function holdingIdentity<T>(domain: string, verifier: DomainVerifier, now: Date, use: (region: string) => Promise<T>): Promise<T> {
  const region = localRegion();
  for (let attempt = 0; !(await takeIdentityHold(domain, region, now.getTime())); attempt++) {
    if (attempt >= HOLD_ATTEMPTS) throw new ConflictError('CONFLICT', `The domain ${domain} is being removed from the sending service; retry in a few seconds`);
    await sleep(jitteredBackoff(attempt));
  }
  try {
    return await use(region);
  } catch (error) {
    await releaseIdentity(domain, region, verifier, now);
    throw error;
  }
}

/** Creates (or finds) the identity a hold was taken on in `region`, noting when SES made it for this holder. */
export async function createHeldIdentity(domain: string, region: string, verifier: DomainVerifier): Promise<DomainState> {
  const { state, created } = await verifier.createIdentity(domain);
  if (created) await markIdentityCreated(domain, region);
  return state;
}

/**
 * Hands back a domain record's hold on its identity; the last hold of an
 * identity Postlane created deletes it from SES. Never fails the caller, whose
 * own change is made: what goes wrong is logged, and leaves the identity in
 * SES (a hold not handed back keeps it for good), never deletes one in use.
 * Only this region's identity can be deleted here (a function's SES grant is
 * its own region's): the last hold of another region's is handed back there
 * and its identity left for the operator.
 */
export async function releaseIdentity(domain: string, region: string, verifier: DomainVerifier, now: Date): Promise<void> {
  const here = region === localRegion();
  try {
    const claim = await releaseIdentityHold(domain, region, now.getTime(), here);
    if (claim === undefined) {
      if (!here) log.warn('SES identity released from another region; delete it there if no account uses it', { domain, identityRegion: region });
      return;
    }
    try {
      await verifier.deleteIdentity(domain);
    } catch (error) {
      await abandonIdentityDeletion(domain, region, claim);
      throw error;
    }
    await endIdentityDeletion(domain, region, claim);
  } catch (error) {
    log.error('SES identity not released; it stays in SES', { domain, identityRegion: region, error });
  }
}

/**
 * Asks the verifier about the domain for the account and records the answer,
 * adding the domain (with a new proof, holding the identity) when the account
 * does not have it yet (the admin CLI's `domain verify`). Nothing is recorded
 * when the identity does not exist.
 */
export async function verifyDomain(
  accountId: string,
  domain: string,
  verifier: DomainVerifier,
  now = new Date(),
  actor: Actor = OPERATOR,
): Promise<{ domain: string; verified: boolean }> {
  const known = await getDomain(accountId, domain);
  const token = known?.verificationToken ?? newVerificationToken();
  const state = await verifier.readIdentity(domain, token);
  // The event names the record found; a domain added meanwhile by a racing POST is read again below.
  const save = async (found: DomainRecord | undefined) =>
    found && saveDomainState(accountId, domain, state, token, now, domainEvents.verified(found, actor, now));
  let record = await save(known);
  if (!record) {
    try {
      record = await holdingIdentity(domain, verifier, now, async (region) => {
        const added = newDomainRecord(accountId, domain, state, now, token, region);
        await insertDomain(added, newDomainEvents(added, actor, now));
        return added;
      });
    } catch (error) {
      // Added to the account between the read and the insert (a racing POST): record the answer on that one, which keeps its own proof.
      if (!(error instanceof ConflictError && error.code === 'DOMAIN_EXISTS')) throw error;
      record = await save(await getDomain(accountId, domain));
      if (!record) throw error;
    }
  }
  return { domain: record.domain, verified: record.verified };
}
