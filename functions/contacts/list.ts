import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listContacts } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.list, async ({ principal, query }) => ok({ ...(await listContacts(principal.accountId, query)) }));
