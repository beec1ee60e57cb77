/**
 * What a recipient may change about its own subscriptions through the signed
 * links: leave any audience, or rejoin one it left. A bounce or complaint is
 * the service's record of what happened to mail, not the contact's choice, so
 * the contact can never clear one; and `pending` awaits a double opt-in
 * confirmation, which is not given here.
 */
import { getAudienceProfiles } from '#shared/data/audiences.ts';
import { findContactsByEmail, type EmailMembership } from '#shared/data/contacts.ts';
import { NotFoundError } from '#shared/errors.ts';
import type { ContactStatus } from './contact-status.ts';
import { changeContactStatus } from './contacts.ts';

export type SubscriptionChoice = 'subscribed' | 'unsubscribed';

/** The statuses a contact may leave for each choice it makes. */
const MOVABLE_TO: Record<SubscriptionChoice, readonly ContactStatus[]> = {
  unsubscribed: ['subscribed', 'pending'],
  subscribed: ['unsubscribed'],
};

export interface AudienceSubscription {
  audienceId: string;
  /** The audience's name, shown to the recipient. */
  name: string;
  status: ContactStatus;
  /** The choice the recipient can make here, if any. */
  canBecome?: SubscriptionChoice;
}

function choiceFor(status: ContactStatus): SubscriptionChoice | undefined {
  return (Object.keys(MOVABLE_TO) as SubscriptionChoice[]).find((choice) => MOVABLE_TO[choice].includes(status));
}

/** A listed subscription with the contact behind it. */
type Membership = AudienceSubscription & { contactId: string };

function subscription(audienceId: string, name: string, status: ContactStatus): AudienceSubscription {
  const canBecome = choiceFor(status);
  return { audienceId, name, status, ...(canBecome ? { canBecome } : {}) };
}

/**
 * Applies a choice to some contacts and returns each one's status afterwards;
 * a contact deleted meanwhile is simply no longer there to change.
 */
async function apply(accountId: string, contacts: Pick<EmailMembership, 'contactId'>[], choice: SubscriptionChoice, now: Date): Promise<Map<string, ContactStatus>> {
  const after = new Map<string, ContactStatus>();
  await Promise.all(contacts.map(async ({ contactId }) => {
    try {
      after.set(contactId, (await changeContactStatus(accountId, contactId, MOVABLE_TO[choice], choice, now)).status);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }));
  return after;
}

/**
 * Unsubscribes the address in every audience of the account where it is
 * subscribed or pending, including audiences deleted since (their contacts
 * remain, and suppression reads them). Idempotent.
 */
export async function unsubscribeEverywhere(accountId: string, email: string, now: Date): Promise<void> {
  const memberships = await findContactsByEmail(accountId, email);
  await apply(accountId, memberships.filter((membership) => MOVABLE_TO.unsubscribed.includes(membership.status)), 'unsubscribed', now);
}

/** The address's audiences that still exist, by name: two round trips. */
async function memberships(accountId: string, email: string): Promise<Membership[]> {
  const found = await findContactsByEmail(accountId, email);
  const profiles = await getAudienceProfiles(accountId, found.map((membership) => membership.audienceId));
  return found
    .flatMap(({ audienceId, contactId, status }) => {
      const profile = profiles.get(audienceId);
      return profile ? [{ ...subscription(audienceId, profile.name, status), contactId }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.audienceId.localeCompare(b.audienceId));
}

function withoutContact({ contactId: _contactId, ...listed }: Membership): AudienceSubscription {
  return listed;
}

/** The address's audiences that still exist, by name, with what the recipient may change in each. */
export async function listSubscriptions(accountId: string, email: string): Promise<AudienceSubscription[]> {
  return (await memberships(accountId, email)).map(withoutContact);
}

export interface PreferenceChange {
  /** One of the listed audiences; absent: every listed audience where the choice applies. */
  audienceId?: string;
  status: SubscriptionChoice;
}

/**
 * Applies the recipient's choice and returns the subscriptions afterwards.
 * `refused` when the named audience is not one of its listed audiences or its
 * status cannot become the choice (bounced, complained, pending → subscribed);
 * nothing changes then. Choosing the status it already has changes nothing
 * and is not refused, so a form sent twice is harmless.
 */
export async function changeSubscriptions(
  accountId: string,
  email: string,
  change: PreferenceChange,
  now: Date,
): Promise<{ refused: boolean; subscriptions: AudienceSubscription[] }> {
  const listed = await memberships(accountId, email);
  const target = change.audienceId === undefined ? undefined : listed.find((membership) => membership.audienceId === change.audienceId);
  const refused = change.audienceId !== undefined && target?.canBecome !== change.status && target?.status !== change.status;
  const moving = refused ? [] : listed.filter((membership) => (target ? membership === target : true) && membership.canBecome === change.status);
  const after = await apply(accountId, moving, change.status, now);
  return {
    refused,
    subscriptions: listed.map((membership) => subscription(membership.audienceId, membership.name, after.get(membership.contactId) ?? membership.status)),
  };
}
