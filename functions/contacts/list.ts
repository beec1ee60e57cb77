import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listContactsQuery } from '#shared/schemas/contacts.ts';
import { listContacts } from '#shared/domain/contacts.ts';

export const handler = endpoint('contacts/list', { query: listContactsQuery }, async ({ principal, query }) =>
  ok({ ...(await listContacts(principal.accountId, query)) }));
