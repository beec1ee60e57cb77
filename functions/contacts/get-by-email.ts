import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getContactByEmail } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.getByEmail, async ({ principal, params, query }) =>
  ok({ data: await getContactByEmail(principal.accountId, params.email!, query.audienceId) }),
);
