/**
 * The sender checks that forms share with the sending path. Kept apart from
 * sending.ts so that functions which only check a sender (form create and
 * update) do not bundle the mail transport and the template engine.
 */
import { getDomain } from '#shared/data/domains.ts';
import { domainOf, parseMailbox, type Mailbox } from '#shared/email/address.ts';
import { PostlaneError, ValidationError } from '#shared/errors.ts';

/** `Name <address>` or an address; INVALID_EMAIL on `field` when the address is not one. */
export function parseMailboxField(value: string, field: string): Mailbox {
  const mailbox = parseMailbox(value);
  if (!mailbox) throw new ValidationError('INVALID_EMAIL', `${field} must be an email address or Name <address>`, field);
  return mailbox;
}

/** SENDER_NOT_VERIFIED on `field` unless the sender's domain is a verified domain of the account. */
export async function ensureVerifiedSender(accountId: string, from: Mailbox, field = 'from'): Promise<void> {
  const domain = domainOf(from.address);
  const record = await getDomain(accountId, domain);
  if (!record?.verified) {
    throw new PostlaneError('SENDER_NOT_VERIFIED', `The sender domain ${domain} is not a verified domain of this account`, { field });
  }
}
