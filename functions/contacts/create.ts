import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createContactBody } from '#shared/schemas/contacts.ts';
import { createContact } from '#shared/domain/contacts.ts';

export const handler = endpoint('contacts/create', { body: createContactBody }, async ({ principal, body, now }) =>
  created(await createContact(principal.accountId, body, now)));
