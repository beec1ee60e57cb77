// The double opt-in link's landing: no mail is sent here, so it stays apart from form-submissions.ts and the mail transport.
import { findContactsByEmail } from '#shared/data/contacts.ts';
import { changeContactStatus } from './contacts.ts';
import { verifySubscriptionToken } from './subscription-links.ts';

export type ConfirmationOutcome = 'confirmed' | 'already-subscribed' | 'not-pending' | 'invalid';

/**
 * Double opt-in: the signed link of the confirmation email moves the
 * address's pending contact in that audience to `subscribed`. Opening it
 * again changes nothing. A contact that is no longer pending (unsubscribed
 * meanwhile, bounced) is left as it is.
 */
export async function confirmSubscription(token: string, audienceId: string | undefined, now: Date): Promise<ConfirmationOutcome> {
  const claims = await verifySubscriptionToken(token);
  if (!claims || !audienceId) return 'invalid';
  const membership = (await findContactsByEmail(claims.accountId, claims.email)).find((found) => found.audienceId === audienceId);
  if (!membership) return 'invalid';
  if (membership.status === 'subscribed') return 'already-subscribed';
  if (membership.status !== 'pending') return 'not-pending';
  const after = await changeContactStatus(claims.accountId, membership.contactId, ['pending'], 'subscribed', now);
  return after.status === 'subscribed' ? 'confirmed' : 'not-pending';
}
