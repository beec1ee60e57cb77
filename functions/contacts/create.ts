import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createContact } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.create, async ({ principal, body, now }) => created(await createContact(principal.accountId, body, now)));
