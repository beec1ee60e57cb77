import { defineArea, signedLink } from '#shared/platform/http/contract.ts';
import { preferencesBody } from '#shared/subscriptions/schema.ts';

const unsubscribeLink = signedLink('/unsubscribe/{token}', 'subscriptionToken');
const preferencesLink = signedLink('/preferences/{token}', 'subscriptionToken');

export const subscriptions = defineArea('subscriptions', {
  unsubscribePage: unsubscribeLink.page({
    table: [],
    pageStatuses: [400],
    summary: 'Unsubscribe page of a signed link',
    description: 'Shows a button that confirms the unsubscribe; opening the link changes nothing, since mail scanners open links.',
  }),
  unsubscribe: unsubscribeLink.post({
    table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'],
    request: {},
    pageStatuses: [400],
    summary: 'Unsubscribe (also RFC 8058 one-click)',
    description:
      'The address leaves every audience of the account where it is subscribed or pending; an address that is no contact of the account goes on its suppression list, which general sends honour (OTP and transactional sends do not).',
  }),
  preferencesPage: preferencesLink.page({
    table: ['Query', 'BatchGetItem', 'GetItem'],
    pageStatuses: [400],
    summary: 'Subscription preferences page of a signed link',
    description: 'Lists the audiences of the account the address belongs to, each with a button to leave or rejoin it.',
  }),
  updatePreferences: preferencesLink.post({
    table: ['Query', 'BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bodyFormats: ['json', 'form'],
    request: { body: preferencesBody },
    pageStatuses: [400, 409],
    summary: 'Leave or rejoin an audience, or leave all',
    description:
      "Without `audienceId` the choice also applies to the address's standing with all of the account's mail, shown for an address that is no contact: leaving puts it on the suppression list, rejoining lifts an unsubscribe (never a bounce or complaint).",
    example: { status: 'unsubscribed', audienceId: 'aud_0BqM3xYfZk2T' },
  }),
});
