import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteContact } from '#shared/contacts/service.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.delete, async ({ principal, params, now }) => {
  await deleteContact(principal.accountId, params.id!, now);
  return deleted('Contact deleted permanently');
});
