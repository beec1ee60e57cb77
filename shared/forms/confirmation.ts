// The double opt-in link's landing: no mail is sent here, so it stays apart from form-submissions.ts and the mail transport.
import { findContactsByEmail } from '#shared/contacts/service.ts';
import { changeContactStatus } from '#shared/contacts/service.ts';
import { verifyConfirmationToken } from './confirmation-links.ts';

export type ConfirmationOutcome = 'confirmed' | 'already-subscribed' | 'not-pending' | 'invalid';

/**
 * Double opt-in: the POST of the confirmation page moves the address's
 * pending contact in the audience the token names to `subscribed`. Posting
 * again changes nothing. A contact that is no longer pending (unsubscribed
 * meanwhile, bounced) is left as it is.
 */
export async function confirmSubscription(token: string, now: Date): Promise<ConfirmationOutcome> {
  const claims = await verifyConfirmationToken(token);
  if (!claims) return 'invalid';
  const membership = (await findContactsByEmail(claims.accountId, claims.email)).find((found) => found.audienceId === claims.audienceId);
  if (!membership) return 'invalid';
  if (membership.status === 'subscribed') return 'already-subscribed';
  if (membership.status !== 'pending') return 'not-pending';
  const after = await changeContactStatus(claims.accountId, membership.contactId, ['pending'], 'subscribed', now);
  return after.status === 'subscribed' ? 'confirmed' : 'not-pending';
}
