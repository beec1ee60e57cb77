import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteContact } from '#shared/domain/contacts.ts';
import { contacts } from './contract.ts';

export const handler = endpoint(contacts.delete, async ({ principal, params, now }) => {
  await deleteContact(principal.accountId, params.id!, now);
  return deleted('Contact deleted permanently');
});
