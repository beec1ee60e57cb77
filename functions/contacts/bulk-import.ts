import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { bulkImportBody } from '#shared/schemas/contacts.ts';
import { importContacts } from '#shared/domain/contact-import.ts';

export const handler = endpoint('contacts/bulk-import', { body: bulkImportBody }, async ({ principal, body, now }) =>
  ok({ ...(await importContacts(principal.accountId, body, now)) }));
