/**
 * The public unsubscribe and preference pages behind the signed links. Every
 * entry point checks the token first; an invalid one gets the same 400 page
 * and changes nothing. Forms post back to the page's own URL, so the pages
 * work under any base address (API Gateway's, a custom domain, localhost).
 */
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
import { verifySubscriptionToken, type SubscriptionClaims } from '#shared/sending/subscription-links.ts';
import {
  changeSubscriptions,
  listSubscriptions,
  unsubscribeThroughLink,
  type AccountWideSubscription,
  type AddressSubscriptions,
  type AudienceSubscription,
} from './service.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import type { Reply } from '#shared/platform/http/reply.ts';
import type { PreferencesInput } from './schema.ts';
import { htmlPage } from '#shared/platform/http/page-layout.ts';

const STATUS_LABELS: Record<ContactStatus | 'manual', string> = {
  subscribed: 'Subscribed',
  // Put on the account's suppression list by the sender: not the recipient's to lift.
  manual: 'Paused by the sender',
  unsubscribed: 'Unsubscribed',
  pending: 'Awaiting confirmation',
  bounced: 'Paused: messages to this address bounced',
  complained: 'Paused: a message was reported as spam',
};

function invalidLink(): Reply {
  return htmlPage(
    'Link not valid',
    `<h1>This link is not valid</h1>
<p>It may have been cut short when it was copied. Open the link from the email again, or use the link in a more recent email.</p>
<p>Nothing was changed.</p>`,
    400,
  );
}

/** Runs `page` for the recipient the token names, or answers the invalid-link page. */
async function forRecipient(token: string, page: (claims: SubscriptionClaims) => Promise<Reply>): Promise<Reply> {
  const claims = await verifySubscriptionToken(token);
  return claims ? page(claims) : invalidLink();
}

/** Relative to `/unsubscribe/<token>` and `/preferences/<token>` alike, so it survives any base path. */
const preferencesLink = (token: string) => `../preferences/${escapeHtml(token)}`;

/** GET /unsubscribe/{token}: asks first, because mail scanners follow links. */
export function unsubscribeConfirmation(token: string): Promise<Reply> {
  return forRecipient(token, async ({ email }) =>
    htmlPage(
      'Unsubscribe',
      `<h1>Unsubscribe</h1>
<p>Stop emails to <strong>${escapeHtml(email)}</strong>?</p>
<form method="post">
<button type="submit">Unsubscribe</button>
</form>
<p><a href="${preferencesLink(token)}">Choose which emails to receive instead</a></p>`,
    ),
  );
}

/** POST /unsubscribe/{token}: the confirmation button and RFC 8058 one-click. */
export function unsubscribe(token: string, now: Date): Promise<Reply> {
  return forRecipient(token, async (claims) => {
    await unsubscribeThroughLink(claims, now);
    return htmlPage(
      'Unsubscribed',
      `<h1>You are unsubscribed</h1>
<p><strong>${escapeHtml(claims.email)}</strong> will no longer receive these emails.</p>
<p>Changed your mind? <a href="${preferencesLink(token)}">Manage your preferences</a></p>`,
    );
  });
}

/** One line of the list: a name, its status, and a button for the choice it allows (no audience: the account-wide standing). */
function listItem(name: string, status: keyof typeof STATUS_LABELS, canBecome: AudienceSubscription['canBecome'], audienceId?: string): string {
  const action = canBecome === 'subscribed' ? 'Resubscribe' : 'Unsubscribe';
  const form = canBecome
    ? `<form method="post">${audienceId === undefined ? '' : `<input type="hidden" name="audienceId" value="${escapeHtml(audienceId)}">`}` +
      `<button type="submit" name="status" value="${canBecome}"${canBecome === 'subscribed' ? ' class="secondary"' : ''}>` +
      `${action}<span class="visually-hidden"> ${canBecome === 'subscribed' ? 'to' : 'from'} ${escapeHtml(name)}</span></button></form>`
    : '';
  return `<li><div><strong>${escapeHtml(name)}</strong><br><span class="status">${STATUS_LABELS[status]}</span></div>${form}</li>`;
}

function subscriptionItem({ audienceId, name, status, canBecome }: AudienceSubscription): string {
  return listItem(name, status, canBecome, audienceId);
}

/** An address that is on no list (a cc, a one-off recipient) still chooses whether this sender may write to it. */
const ACCOUNT_WIDE_NAME = 'All emails from this sender';

function accountWideItem({ status, canBecome }: AccountWideSubscription): string {
  return listItem(ACCOUNT_WIDE_NAME, status, canBecome);
}

function preferencesPage(email: string, { subscriptions, accountWide }: AddressSubscriptions, notice?: { text: string; error?: boolean }, status = 200): Reply {
  const items = [...subscriptions.map(subscriptionItem), ...(accountWide ? [accountWideItem(accountWide)] : [])];
  const list = items.length > 0 ? `<ul>${items.join('\n')}</ul>` : '<p>This address is on no mailing list.</p>';
  const leaveAll = subscriptions.some((subscription) => subscription.canBecome === 'unsubscribed')
    ? '<form method="post"><button type="submit" name="status" value="unsubscribed">Unsubscribe from all</button></form>'
    : '';
  const message = notice ? `<p class="notice${notice.error ? ' error' : ''}" role="status">${escapeHtml(notice.text)}</p>` : '';
  return htmlPage(
    'Email preferences',
    `<h1>Email preferences</h1>
${message}
<p>Emails to <strong>${escapeHtml(email)}</strong>:</p>
${list}
${leaveAll}`,
    status,
  );
}

/** GET /preferences/{token}: the address's audiences and what it may change in each. */
export function preferences(token: string): Promise<Reply> {
  return forRecipient(token, async ({ accountId, email }) => preferencesPage(email, await listSubscriptions(accountId, email)));
}

/** POST /preferences/{token}: leaves or rejoins one audience, or leaves all; 409 when the change is not the recipient's to make. */
export function savePreferences(token: string, change: PreferencesInput, now: Date): Promise<Reply> {
  return forRecipient(token, async (claims) => {
    const { refused, ...after } = await changeSubscriptions(claims, change, now);
    const { email } = claims;
    return refused
      ? preferencesPage(email, after, { text: 'That subscription cannot be changed from this page. Nothing was changed.', error: true }, 409)
      : preferencesPage(email, after, { text: 'Your preferences are saved.' });
  });
}
