import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateContactBody } from '#shared/schemas/contacts.ts';
import { updateContact } from '#shared/domain/contacts.ts';

export const handler = endpoint('contacts/update', { body: updateContactBody }, async ({ principal, params, body, now }) =>
  ok({ data: await updateContact(principal.accountId, params.id!, body, now) }));
