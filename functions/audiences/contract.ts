import { defineArea, KEYED, resource } from '#shared/platform/http/contract.ts';
import { audienceExportReply } from '#shared/contacts/schema.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';
import {
  audienceListItemSchema,
  audienceSchema,
  audienceStatsSchema,
  createAudienceBody,
  listAudiencesQuery,
  updateAudienceBody,
} from '#shared/audiences/schema.ts';

const audience = resource('/api/audiences', 'audience', 'AUDIENCE_NOT_FOUND', { schema: audienceSchema, writeErrors: ['CONFLICT'] });

export const audiences = defineArea('audiences', {
  create: audience.create({
    table: ['PutItem', 'UpdateItem'],
    body: createAudienceBody,
    summary: 'Create an audience',
    description: 'An audience is a list of contacts; it starts empty, with `count` 0.',
    example: { name: 'Newsletter', description: 'Monthly product news' },
  }),
  list: audience.list({
    table: ['Query', 'BatchGetItem', 'GetItem'],
    query: listAudiencesQuery,
    name: 'audiences',
    item: audienceListItemSchema,
    summary: 'List audiences',
    description: "One page of the account's audiences, newest first, each with its exact contact count.",
  }),
  get: audience.get({
    table: ['BatchGetItem'],
    summary: 'Get an audience',
    description: 'The audience with its exact contact count; an audience of another account is answered as unknown.',
  }),
  stats: audience.get({
    sub: 'stats',
    table: ['GetItem'],
    reply: audienceStatsSchema,
    summary: 'Contact counts of an audience by status',
    description:
      'Exact counts per contact status and `growthRate`, the percent change of the contact count over the last 30 days (0 when there was none 30 days ago).',
  }),
  update: audience.update({
    table: ['GetItem', 'UpdateItem'],
    body: updateAudienceBody,
    summary: 'Change the name or description of an audience',
    description: 'Only the fields given change; `description: null` clears the description.',
    example: { description: 'Weekly product news' },
  }),
  delete: audience.delete({
    table: ['DeleteItem', 'UpdateItem'],
    summary: 'Delete an audience (its contacts are kept)',
    description: 'The contacts of a deleted audience stay, keep their `audienceId` and are still listed by it.',
  }),
  export: {
    method: 'POST',
    path: '/api/audiences/{id}/exports',
    ...KEYED,
    // The audience (BatchGetItem); its contacts (Query); the export's record (PutItem; UpdateItem when it cannot be queued).
    table: ['BatchGetItem', 'Query', 'PutItem', 'UpdateItem'],
    attachments: ['export'],
    queues: ['export'],
    params: { id: 'audience' },
    request: {},
    responses: { 201: dataReply(audienceExportReply), 202: dataReply(audienceExportReply) },
    errors: ['AUDIENCE_NOT_FOUND'],
    summary: 'Export the contacts of an audience to CSV',
    description:
      'Writes every contact of the audience to a CSV file (the contact fields, tags joined by `;`, one `customFields.<key>` column per custom field). Up to 25,000 contacts the file is written within the request: 201 `ready` with a presigned link to download it, valid 15 minutes. A larger audience is exported on a queue: 202 `queued`; poll `GET /api/audiences/{id}/exports/{exportId}` until `ready` (or `failed`). The file is removed a day later.',
  },
  getExport: {
    method: 'GET',
    path: '/api/audiences/{id}/exports/{exportId}',
    ...KEYED,
    // The record; a stale one is ended `failed` (UpdateItem).
    table: ['GetItem', 'UpdateItem'],
    attachments: ['signExport'],
    params: { id: 'audience', exportId: 'audienceExport' },
    request: {},
    responses: { 200: dataReply(audienceExportReply) },
    errors: ['EXPORT_NOT_FOUND'],
    summary: 'Get an export of an audience',
    description:
      'Its status (`queued`, `running`, `ready`, `failed` with a `reason`) and, once `ready`, a fresh presigned link to the file, valid 15 minutes. An export is kept a day; an unknown one, or one of another account or audience, is 404 `EXPORT_NOT_FOUND`.',
  },
});
