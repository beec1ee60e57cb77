import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { contactByEmailQuery } from '#shared/schemas/contacts.ts';
import { getContactByEmail } from '#shared/domain/contacts.ts';

export const handler = endpoint('contacts/get-by-email', { query: contactByEmailQuery }, async ({ principal, params, query }) =>
  ok({ data: await getContactByEmail(principal.accountId, params.email!, query.audienceId) }));
