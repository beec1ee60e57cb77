import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getContactByEmail } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.getByEmail, async ({ principal, params, query }) =>
  ok({ data: await getContactByEmail(principal.accountId, params.email!, query.audienceId) }),
);
