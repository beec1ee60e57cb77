import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listContacts } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.list, async ({ principal, query }) => ok({ ...(await listContacts(principal.accountId, query)) }));
