import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { importContacts } from '#shared/domain/contact-import.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.bulkImport, async ({ principal, body, now }) => ok({ ...(await importContacts(principal.accountId, body, now)) }));
