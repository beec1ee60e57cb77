import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getContact } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.get, async ({ principal, params }) => ok({ data: await getContact(principal.accountId, params.id!) }));
