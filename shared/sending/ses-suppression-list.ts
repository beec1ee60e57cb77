/**
 * SES's account-level suppression list: the addresses SES itself stopped
 * sending to after a hard bounce or a complaint, for every sender of this AWS
 * account and region, whether or not Postlane heard the event.
 */
import { GetSuppressedDestinationCommand, NotFoundException, paginateListSuppressedDestinations } from '@aws-sdk/client-sesv2';
import { ses } from './transport.ts';

export interface SuppressedAddress {
  email: string;
  reason: 'BOUNCE' | 'COMPLAINT';
  /** When SES last put it there. */
  updatedAt: Date;
}

/** Every address SES suppressed or re-suppressed from `since` to `until`, page by page. */
export async function* suppressedBetween(since: Date | undefined, until: Date): AsyncGenerator<SuppressedAddress> {
  const pages = paginateListSuppressedDestinations(
    { client: ses },
    { Reasons: ['BOUNCE', 'COMPLAINT'], ...(since ? { StartDate: since } : {}), EndDate: until },
  );
  for await (const page of pages) {
    for (const entry of page.SuppressedDestinationSummaries ?? []) {
      if (entry.Reason !== 'BOUNCE' && entry.Reason !== 'COMPLAINT') continue;
      yield { email: entry.EmailAddress!, reason: entry.Reason, updatedAt: entry.LastUpdateTime! };
    }
  }
}

/** SES's id of the message that put the address on the list; undefined when it was added by hand (no message) or removed meanwhile. */
export async function suppressingMessageId(email: string): Promise<string | undefined> {
  try {
    const { SuppressedDestination } = await ses.send(new GetSuppressedDestinationCommand({ EmailAddress: email }));
    return SuppressedDestination?.Attributes?.MessageId;
  } catch (error) {
    if (error instanceof NotFoundException) return undefined;
    throw error;
  }
}
