import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createContact } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.create, async ({ principal, body, now }) => created(await createContact(principal.accountId, body, now)));
