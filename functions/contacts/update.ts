import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateContact } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateContact(principal.accountId, params.id!, body, now) }),
);
