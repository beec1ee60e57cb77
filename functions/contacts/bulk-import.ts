import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.bulkImport, async ({ principal, body, now }) => ok({ ...(await importContacts(principal.accountId, body, now)) }));
