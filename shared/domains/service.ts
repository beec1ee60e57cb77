/**
 * Sending domains over the API (beyond the spec): add one, list them, and read
 * one with the DNS records SES needs and where its verification stands.
 */
import {
  countDomains,
  getDomainById,
  getDomain as readDomain,
  insertDomain,
  listDomains as readDomains,
  removeDomain,
  saveDomainState,
  domainExists,
  domainLimitReached,
  MAX_DOMAINS_PER_ACCOUNT,
  type DomainRecord,
} from './store.ts';
import { NotFoundError, notFound } from '#shared/platform/errors.ts';
import { pagination, type Pagination } from '#shared/platform/schema/common.ts';
import type { CreateDomainInput, domainListItemSchema, domainSchema } from './schema.ts';
import {
  configuredVerifier,
  createHeldIdentity,
  holdingIdentity,
  newDomainRecord,
  newVerificationToken,
  ownershipRecord,
  releaseIdentity,
  type DomainVerifier,
} from './verification.ts';
import type * as v from 'valibot';
import { orNull, pick } from '#shared/platform/views.ts';
import { findById } from '#shared/platform/lookup.ts';
import { OPERATOR, type Actor } from '#shared/events/service.ts';
import { domainEvents, newDomainEvents } from './audit-events.ts';

export type Domain = v.InferOutput<typeof domainSchema>;
/** `dkim` records are what SES verifies; `ownership` is the account's own proof; `spf` and `dmarc` are advice for deliverability. */
export type DnsRecord = Domain['records'][number];
export type DomainListItem = v.InferOutput<typeof domainListItemSchema>;

/**
 * What to publish in DNS: SES's three Easy DKIM CNAMEs, which verify the
 * domain in SES; the account's ownership TXT, which makes it the account's
 * (SES's identity is shared by every account that adds the name); an SPF
 * record naming SES, for receivers that check SPF against the header domain
 * (SES's own MAIL FROM domain passes SPF already); and a monitoring-only DMARC
 * policy, which Gmail and Yahoo require of bulk senders. A domain recorded
 * before proofs existed has no token until its next check.
 */
export function dnsRecords(domain: string, dkimTokens: string[], verificationToken?: string): DnsRecord[] {
  return [
    ...dkimTokens.map(
      (token): DnsRecord => ({
        purpose: 'dkim',
        type: 'CNAME',
        name: `${token}._domainkey.${domain}`,
        value: `${token}.dkim.amazonses.com`,
        required: true,
      }),
    ),
    ...(verificationToken ? [{ purpose: 'ownership', type: 'TXT', ...ownershipRecord(domain, verificationToken), required: true } as const] : []),
    { purpose: 'spf', type: 'TXT', name: domain, value: 'v=spf1 include:amazonses.com ~all', required: false },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain}`, value: 'v=DMARC1; p=none;', required: false },
  ];
}

function toListItem(record: DomainRecord): DomainListItem {
  return { id: record.domainId, ...pick(record, 'domain', 'verified', 'status', 'createdAt'), ...orNull(record, 'verifiedAt') };
}

function toDomain(record: DomainRecord): Domain {
  const { createdAt, verifiedAt, ...rest } = toListItem(record);
  return { ...rest, records: dnsRecords(record.domain, record.dkimTokens, record.verificationToken), createdAt, verifiedAt };
}

/**
 * Creates the sending identity (holding it) and records the domain, pending,
 * with a new proof and its `domain.created` event: 409 DOMAIN_EXISTS when the
 * account has it already, DOMAIN_LIMIT_REACHED when it has MAX_DOMAINS_PER_ACCOUNT.
 * `actor`, here and below: who acts, for the audit events (the calling key;
 * the operator when a tool calls the service itself).
 */
export async function createDomain(
  accountId: string,
  input: CreateDomainInput,
  now: Date,
  verifier: DomainVerifier = configuredVerifier(),
  actor: Actor = OPERATOR,
): Promise<Domain> {
  // Checked first so that a repeated request, or one past the limit, does not call SES; the insert's conditions settle races.
  const [existing, held] = await Promise.all([readDomain(accountId, input.domain), countDomains(accountId)]);
  if (existing) throw domainExists(input.domain);
  if (held >= MAX_DOMAINS_PER_ACCOUNT) throw domainLimitReached();
  return holdingIdentity(input.domain, verifier, now, async (region) => {
    const record = newDomainRecord(accountId, input.domain, await createHeldIdentity(input.domain, region, verifier), now, undefined, region);
    await insertDomain(record, newDomainEvents(record, actor, now));
    return toDomain(record);
  });
}

/**
 * Removes the domain from the account, which can no longer send from it, and
 * gives its place under the limit back; then hands back its hold on the SES
 * identity, deleted with the last account holding it.
 */
export async function deleteDomain(
  accountId: string,
  domainId: string,
  now: Date,
  verifier: DomainVerifier = configuredVerifier(),
  actor: Actor = OPERATOR,
): Promise<void> {
  const record = await findById('dom', domainId, () => getDomainById(accountId, domainId), notFound.domain);
  await removeDomain(record, domainEvents.deleted(record, actor, now));
  if (record.identityRegion !== undefined) await releaseIdentity(record.domain, record.identityRegion, verifier, now);
}

/**
 * The domain with its DNS records. While it is not verified, checks both
 * proofs again and records any change, so a client polling this sees
 * verification land; once verified, the stored state answers
 * (`verifyDomainNow` and the admin CLI re-check).
 */
export async function getDomain(
  accountId: string,
  domainId: string,
  now: Date,
  verifier: DomainVerifier = configuredVerifier(),
  actor: Actor = OPERATOR,
): Promise<Domain> {
  const record = await findById('dom', domainId, () => getDomainById(accountId, domainId), notFound.domain);
  return record.verified ? toDomain(record) : checkNow(record, now, verifier, actor);
}

/**
 * POST /api/domains/:id/verify: checks both proofs now, whatever the stored
 * state, records what they say and answers the domain. A verified domain
 * whose records were removed goes back to pending (or failed), and sends
 * from it are refused until it verifies again.
 */
export async function verifyDomainNow(
  accountId: string,
  domainId: string,
  now: Date,
  verifier: DomainVerifier = configuredVerifier(),
  actor: Actor = OPERATOR,
): Promise<Domain> {
  return checkNow(await findById('dom', domainId, () => getDomainById(accountId, domainId), notFound.domain), now, verifier, actor);
}

/** Asks SES and DNS about the domain and records any change, with `domain.verified` when it becomes verified. */
async function checkNow(record: DomainRecord, now: Date, verifier: DomainVerifier, actor: Actor): Promise<Domain> {
  const { accountId } = record;
  const token = record.verificationToken ?? newVerificationToken();
  let state: Awaited<ReturnType<typeof verifier.readIdentity>>;
  try {
    state = await verifier.readIdentity(record.domain, token);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // No identity to ask (removed from SES by hand; none beside the emulator): what was last known stands rather than a
    // 404 for a domain that is listed, but a domain recorded before proofs still gets one of its own to publish.
    if (record.verificationToken) return toDomain(record);
    state = { verified: false, status: 'pending', dkimTokens: record.dkimTokens };
  }
  const changed =
    state.verified !== record.verified ||
    state.status !== record.status ||
    state.dkimTokens.join() !== record.dkimTokens.join() ||
    token !== record.verificationToken;
  const saved = changed && (await saveDomainState(accountId, record.domain, state, token, now, domainEvents.verified(record, actor, now)));
  return toDomain(saved || record);
}

export async function listDomains(accountId: string, page: number, limit: number): Promise<{ domains: DomainListItem[]; pagination: Pagination }> {
  const { domains, total } = await readDomains(accountId, (page - 1) * limit, limit);
  return { domains: domains.map(toListItem), pagination: pagination(total, page, limit) };
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export { domainRead, type DomainRecord, earliestVerifiedDomain, getDomain as getDomainRecord } from './store.ts';
