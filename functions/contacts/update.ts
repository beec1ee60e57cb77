import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { updateContact } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateContact(principal.accountId, params.id!, body, now) }),
);
