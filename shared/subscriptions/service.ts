/**
 * What a recipient may change about its own subscriptions through the signed
 * links: leave any audience, or rejoin one it left. A bounce or complaint is
 * the service's record of what happened to mail, not the contact's choice, so
 * the contact can never clear one; and `pending` awaits a double opt-in
 * confirmation, which is not given here.
 *
 * An address that is no contact of the account (a cc, a bcc, a recipient of
 * a one-off send) has no audience to leave: its choice is kept on the
 * account's suppression list instead, so unsubscribing always records
 * something (docs/api.md, "Unsubscribe and preferences"). So is a contact's
 * "Unsubscribe from all": all mail of the account, in the audiences it is in
 * and in any that adds it later (docs/broadcasts.md, "What a client can rely on").
 */
import { getAudienceProfiles } from '#shared/audiences/service.ts';
import { countBroadcastUnsubscribe } from '#shared/broadcasts/service.ts';
import { findContactsByEmail, type EmailMembership } from '#shared/contacts/service.ts';
import { putEventItemsOnce } from '#shared/events/service.ts';
import { getSuppression, newUnsubscribePut, removeUnsubscribe, type SuppressionReason } from '#shared/sending/service.ts';
import type { SubscriptionClaims } from '#shared/sending/subscription-links.ts';
import { NotFoundError } from '#shared/platform/errors.ts';
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
import { changeContactStatus } from '#shared/contacts/service.ts';
import { eventWrite } from '#shared/events/service.ts';

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
async function apply(
  accountId: string,
  contacts: Pick<EmailMembership, 'contactId'>[],
  choice: SubscriptionChoice,
  now: Date,
): Promise<Map<string, ContactStatus>> {
  const after = new Map<string, ContactStatus>();
  await Promise.all(
    contacts.map(async ({ contactId }) => {
      try {
        // The recipient's own unsubscribe is `contact.unsubscribed`; a resubscribe is an update like any other.
        const type = choice === 'unsubscribed' ? 'contact.unsubscribed' : 'contact.updated';
        after.set(contactId, (await changeContactStatus(accountId, contactId, MOVABLE_TO[choice], choice, now, type)).status);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }),
  );
  return after;
}

/**
 * Puts an address that is no contact on the account's suppression list, with
 * its `contact.unsubscribed` event (no contact nor audience to name), in one
 * transaction that only an address with no suppression yet passes: a second
 * click records nothing. The suppression's condition, not the event's key,
 * makes it once; the time in the key tells a later unsubscribe (after a
 * resubscribe lifted this one) from this one.
 */
async function unsubscribeAddress(accountId: string, email: string, now: Date): Promise<boolean> {
  return putEventItemsOnce([
    newUnsubscribePut(accountId, email, now),
    ...eventWrite(
      accountId,
      {
        type: 'contact.unsubscribed',
        data: { contactId: null, email, audienceId: null, status: 'unsubscribed' },
        sourceKey: `suppression:${email}:unsubscribed:${now.getTime()}`,
      },
      now.getTime(),
    ),
  ]);
}

/**
 * Unsubscribes the address in every audience of the account where it is
 * subscribed or pending, including audiences deleted since (their contacts
 * remain, and suppression reads them); an address that is no contact goes on
 * the account's suppression list. Idempotent. True when it changed something
 * (a click racing it may see the same change: `countBroadcastUnsubscribe`
 * counts once).
 */
async function unsubscribeEverywhere(accountId: string, email: string, now: Date): Promise<boolean> {
  const memberships = await findContactsByEmail(accountId, email);
  if (memberships.length === 0) return unsubscribeAddress(accountId, email, now);
  const moving = memberships.filter((membership) => MOVABLE_TO.unsubscribed.includes(membership.status));
  const after = await apply(accountId, moving, 'unsubscribed', now);
  return [...after.values()].includes('unsubscribed');
}

/**
 * The unsubscribe of a signed link. One made from a broadcast's message (the
 * link names it) that changed something counts in that broadcast's
 * `unsubscribed`, once per recipient; an address that was unsubscribed
 * already left through another message and counts nowhere.
 */
export async function unsubscribeThroughLink(claims: SubscriptionClaims, now: Date): Promise<void> {
  const changed = await unsubscribeEverywhere(claims.accountId, claims.email, now);
  if (changed && claims.broadcastId !== undefined) await countBroadcastUnsubscribe(claims.accountId, claims.broadcastId, claims.email);
}

/**
 * The address's standing with all of the account's mail, shown when it is no
 * contact or the account's suppression list holds it: `subscribed` (nothing
 * recorded) or the recorded reason.
 */
export interface AccountWideSubscription {
  status: 'subscribed' | SuppressionReason;
  canBecome?: SubscriptionChoice;
}

export interface AddressSubscriptions {
  subscriptions: AudienceSubscription[];
  accountWide?: AccountWideSubscription;
}

/** Only an unsubscribe recorded here is the recipient's to lift. */
const ACCOUNT_WIDE_CHOICE: Partial<Record<AccountWideSubscription['status'], SubscriptionChoice>> = { subscribed: 'unsubscribed', unsubscribed: 'subscribed' };

function accountWide(status: AccountWideSubscription['status']): AccountWideSubscription {
  const canBecome = ACCOUNT_WIDE_CHOICE[status];
  return { status, ...(canBecome ? { canBecome } : {}) };
}

/** The address's audiences that still exist, by name, and its account-wide standing: two round trips. */
async function memberships(accountId: string, email: string): Promise<{ listed: Membership[]; accountWide?: AccountWideSubscription }> {
  const [found, suppressed] = await Promise.all([findContactsByEmail(accountId, email), getSuppression(accountId, email)]);
  const profiles = await getAudienceProfiles(
    accountId,
    found.map((membership) => membership.audienceId),
  );
  const listed = found
    .flatMap(({ audienceId, contactId, status }) => {
      const profile = profiles.get(audienceId);
      return profile ? [{ ...subscription(audienceId, profile.name, status), contactId }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.audienceId.localeCompare(b.audienceId));
  return found.length === 0 || suppressed ? { listed, accountWide: accountWide(suppressed ?? 'subscribed') } : { listed };
}

function withoutContact({ contactId: _contactId, ...listed }: Membership): AudienceSubscription {
  return listed;
}

/** The address's audiences that still exist, by name, with what the recipient may change in each; and its account-wide standing. */
export async function listSubscriptions(accountId: string, email: string): Promise<AddressSubscriptions> {
  const { listed, accountWide: standing } = await memberships(accountId, email);
  return { subscriptions: listed.map(withoutContact), ...(standing ? { accountWide: standing } : {}) };
}

/** Applies a choice to the account-wide standing; the standing afterwards. */
async function applyAccountWide(
  accountId: string,
  email: string,
  standing: AccountWideSubscription,
  choice: SubscriptionChoice,
  now: Date,
): Promise<AccountWideSubscription> {
  if (standing.canBecome !== choice) return standing;
  if (choice === 'unsubscribed') {
    await unsubscribeAddress(accountId, email, now);
    return accountWide('unsubscribed');
  }
  // A bounce or complaint recorded meanwhile stays: then the unsubscribe was not there to lift.
  return (await removeUnsubscribe(accountId, email)) ? accountWide('subscribed') : accountWide((await getSuppression(accountId, email)) ?? 'subscribed');
}

export interface PreferenceChange {
  /** One of the listed audiences; absent: every listed audience where the choice applies. */
  audienceId?: string;
  status: SubscriptionChoice;
}

/**
 * The choice a preference change makes of the account-wide standing, if any.
 * Without an audience it is the standing's own: leaving all mail is kept on
 * the account's suppression list for an address with contacts too, so that
 * no audience that adds it later mails it (broadcasts and general sends skip
 * the list; its contacts' statuses only cover the audiences it is in now).
 * Rejoining one audience lifts such an unsubscribe: the recipient chose this
 * sender's mail again, and the audience would otherwise stay silent.
 */
function accountWideChoice(standing: AccountWideSubscription | undefined, change: PreferenceChange): SubscriptionChoice | undefined {
  // Nothing recorded for an address with contacts stands for `subscribed`: only leaving changes it.
  if (change.audienceId === undefined) return standing || change.status === 'unsubscribed' ? change.status : undefined;
  return change.status === 'subscribed' && standing?.status === 'unsubscribed' ? 'subscribed' : undefined;
}

/**
 * Applies the recipient's choice, made through its signed link, and returns
 * the subscriptions afterwards. `refused` when the named audience is not one
 * of its listed audiences or its status cannot become the choice (bounced,
 * complained, pending → subscribed); nothing changes then. Choosing the status
 * it already has changes nothing and is not refused, so a form sent twice is
 * harmless. A choice without an audience applies to the account-wide standing
 * too, and so does rejoining an audience after leaving all mail
 * (`accountWideChoice`). A change that unsubscribes the address from
 * anything, through a link of a broadcast's message, counts in that
 * broadcast's `unsubscribed` as its unsubscribe link does (once per recipient).
 */
export async function changeSubscriptions(
  claims: SubscriptionClaims,
  change: PreferenceChange,
  now: Date,
): Promise<{ refused: boolean } & AddressSubscriptions> {
  const { accountId, email } = claims;
  const { listed, accountWide: standing } = await memberships(accountId, email);
  const target = change.audienceId === undefined ? undefined : listed.find((membership) => membership.audienceId === change.audienceId);
  const refused = change.audienceId !== undefined && target?.canBecome !== change.status && target?.status !== change.status;
  const moving = refused ? [] : listed.filter((membership) => (target ? membership === target : true) && membership.canBecome === change.status);
  const choice = refused ? undefined : accountWideChoice(standing, change);
  const [after, standingAfter] = await Promise.all([
    apply(accountId, moving, change.status, now),
    choice ? applyAccountWide(accountId, email, standing ?? accountWide('subscribed'), choice, now) : standing,
  ]);
  const left = [...after.values()].includes('unsubscribed') || (standing?.status !== 'unsubscribed' && standingAfter?.status === 'unsubscribed');
  if (left && claims.broadcastId !== undefined) await countBroadcastUnsubscribe(accountId, claims.broadcastId, email);
  return {
    refused,
    subscriptions: listed.map((membership) => subscription(membership.audienceId, membership.name, after.get(membership.contactId) ?? membership.status)),
    ...(standingAfter ? { accountWide: standingAfter } : {}),
  };
}
