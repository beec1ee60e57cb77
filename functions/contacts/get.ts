import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getContact } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.get, async ({ principal, params }) => ok({ data: await getContact(principal.accountId, params.id!) }));
