/**
 * The sender checks that forms share with the sending path. Kept apart from
 * sending.ts so that functions which only check a sender (form create and
 * update) do not bundle the mail transport and the template engine.
 */
import { domainRead, earliestVerifiedDomain, getDomainRecord, type DomainRecord } from '#shared/domains/service.ts';
import type { KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import { domainOf, parseMailbox, type Mailbox } from './address.ts';
import { PostlaneError, ValidationError } from '#shared/platform/errors.ts';

/** `Name <address>` or an address; INVALID_EMAIL on `field` when the address is not one. */
export function parseMailboxField(value: string, field: string): Mailbox {
  const mailbox = parseMailbox(value);
  if (!mailbox) throw new ValidationError('INVALID_EMAIL', `${field} must be an email address or Name <address>`, field);
  return mailbox;
}

/** SENDER_NOT_VERIFIED on `field` unless the sender's domain is a verified domain of the account (and the key's own, with `boundDomain`). */
export async function ensureVerifiedSender(accountId: string, from: Mailbox, field = 'from', boundDomain?: string): Promise<void> {
  checkVerifiedSender(await getDomainRecord(accountId, domainOf(from.address)), from, field, boundDomain);
}

/** The read of the sender's domain, for a caller that joins it to its other reads (`readTogether`); `checkVerifiedSender` judges it. */
export function senderDomainRead(accountId: string, from: Mailbox): KeyedRead<DomainRecord | undefined> {
  return domainRead(accountId, domainOf(from.address));
}

/**
 * SENDER_NOT_VERIFIED on `field` unless `record`, the domain of `from` as the
 * account has it, is verified; first, FORBIDDEN when the key that sends is
 * bound to another domain (`boundDomain`: a sending key made with `domain`),
 * whatever the account's domains, so such a key never sends as another.
 */
export function checkVerifiedSender(record: DomainRecord | undefined, from: Mailbox, field = 'from', boundDomain?: string): void {
  if (boundDomain !== undefined && domainOf(from.address) !== boundDomain) {
    throw new PostlaneError('FORBIDDEN', `This API key may send only from ${boundDomain}`, { field });
  }
  if (!record?.verified) {
    throw new PostlaneError('SENDER_NOT_VERIFIED', `The sender domain ${domainOf(from.address)} is not a verified domain of this account`, { field });
  }
}

/** The local part of the default sender: replies to form emails go to the submitter (Reply-To) or nowhere. */
const DEFAULT_SENDER_LOCAL_PART = 'no-reply';

/**
 * The sender of a form's emails when it names none: `no-reply@` the account's
 * earliest verified domain (the oldest one added), so adding a domain later
 * does not change it. Undefined when the account has no verified domain.
 */
export async function defaultSender(accountId: string): Promise<Mailbox | undefined> {
  const domain = await earliestVerifiedDomain(accountId);
  return domain ? { address: `${DEFAULT_SENDER_LOCAL_PART}@${domain.domain}` } : undefined;
}

/** SENDER_NOT_VERIFIED on `field` unless the account has a default sender (a verified domain). */
export async function ensureDefaultSender(accountId: string, field: string): Promise<void> {
  if (!(await defaultSender(accountId))) {
    throw new PostlaneError('SENDER_NOT_VERIFIED', `${field} needs a sender: give settings.from, or verify a domain so that emails go from no-reply@ it`, {
      field,
    });
  }
}
