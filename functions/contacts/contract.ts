import { defineArea, KEYED, resource } from '#shared/platform/http/contract.ts';
import {
  bulkImportBody,
  contactByEmailQuery,
  contactListItemSchema,
  contactSchema,
  createContactBody,
  importResultReply,
  listContactsQuery,
  updateContactBody,
} from '#shared/contacts/schema.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';

/** 1,000 contacts with custom fields; Lambda refuses synchronous payloads over 6 MB. */
const BULK_MAX_BODY_BYTES = 5 * 1024 * 1024;

const contact = resource('/api/contacts', 'contact', 'CONTACT_NOT_FOUND', { schema: contactSchema, writeErrors: ['CONFLICT'] });

export const contacts = defineArea('contacts', {
  create: contact.create({
    table: ['PutItem', 'UpdateItem', 'ConditionCheckItem'],
    body: createContactBody,
    errors: ['AUDIENCE_NOT_FOUND', 'CONTACT_EXISTS'],
    summary: 'Create a contact in an audience',
    description: 'The address is stored lower-cased and is unique within its audience (409 `CONTACT_EXISTS`); `status` defaults to `subscribed`.',
    example: { email: 'ada@example.com', audienceId: 'aud_0BqM3xYfZk2T', firstName: 'Ada', tags: ['beta'], customFields: { plan: 'pro' } },
  }),
  list: contact.list({
    table: ['Query', 'GetItem'],
    query: listContactsQuery,
    name: 'contacts',
    item: contactListItemSchema,
    errors: ['AUDIENCE_NOT_FOUND'],
    summary: 'List contacts, filtered by audience, status, tag or search',
    description:
      'One page of contacts, newest first. `search` matches a case-insensitive part of the address, first or last name; a page past the end is empty with the right `total` and `pages`.',
  }),
  bulkImport: {
    method: 'POST',
    path: '/api/contacts/bulk',
    ...KEYED,
    table: ['BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    maxBodyBytes: BULK_MAX_BODY_BYTES,
    request: { body: bulkImportBody },
    responses: { 200: importResultReply },
    errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'],
    summary: 'Import up to 1,000 contacts into an audience',
    description: 'Each entry is validated on its own: a bad entry is reported in `errors` and the rest are imported.',
    example: { audienceId: 'aud_0BqM3xYfZk2T', contacts: [{ email: 'ada@example.com', firstName: 'Ada' }], skipDuplicates: true },
  },
  getByEmail: {
    method: 'GET',
    path: '/api/contacts/email/{email}',
    ...KEYED,
    table: ['GetItem'],
    params: { email: 'contactEmail' },
    request: { query: contactByEmailQuery },
    responses: { 200: dataReply(contactSchema) },
    errors: ['CONTACT_NOT_FOUND', 'AUDIENCE_NOT_FOUND'],
    summary: 'Find a contact of an audience by address',
    description: 'The address is compared case-insensitively; `audienceId` is required, since one address may be a contact of several audiences.',
  },
  get: contact.get({
    table: ['GetItem'],
    summary: 'Get a contact',
    description: 'The contact with its tags and custom fields; a contact of another account is answered as unknown.',
  }),
  update: contact.update({
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    body: updateContactBody,
    summary: 'Change a contact (only the fields given)',
    description: '`customFields` is merged key by key (a key set to `null` is removed) and `tags` replaces all tags; `email` and `audienceId` cannot change.',
    example: { status: 'unsubscribed', tags: ['beta', 'vip'] },
  }),
  delete: contact.delete({
    // PutItem: its contact.deleted event, in the same transaction.
    table: ['GetItem', 'DeleteItem', 'UpdateItem', 'PutItem'],
    summary: 'Delete a contact permanently',
    description: "The contact is removed and its audience's counts drop at once.",
  }),
});
