import { defineArea, KEYED } from '#shared/http/contract.ts';
import { audienceListItemSchema, audienceSchema, audienceStatsSchema, createAudienceBody, listAudiencesQuery, updateAudienceBody } from '#shared/schemas/audiences.ts';
import { dataReply, deletedReply, listReply } from '#shared/schemas/replies.ts';

export const audiences = defineArea('audiences', {
  create: {
    method: 'POST', path: '/api/audiences', ...KEYED, table: ['PutItem', 'UpdateItem'],
    request: { body: createAudienceBody },
    responses: { 201: dataReply(audienceSchema) },
    summary: 'Create an audience',
    description: 'An audience is a list of contacts; it starts empty, with `count` 0.',
    example: { name: 'Newsletter', description: 'Monthly product news' },
  },
  list: {
    method: 'GET', path: '/api/audiences', ...KEYED, table: ['Query', 'BatchGetItem', 'GetItem'],
    request: { query: listAudiencesQuery },
    responses: { 200: listReply('audiences', audienceListItemSchema) },
    summary: 'List audiences',
    description: 'One page of the account\'s audiences, newest first, each with its exact contact count.',
  },
  get: {
    method: 'GET', path: '/api/audiences/{id}', ...KEYED, table: ['BatchGetItem'], params: { id: 'audience' },
    request: {},
    responses: { 200: dataReply(audienceSchema) },
    errors: ['AUDIENCE_NOT_FOUND'],
    summary: 'Get an audience',
    description: 'The audience with its exact contact count; an audience of another account is answered as unknown.',
  },
  stats: {
    method: 'GET', path: '/api/audiences/{id}/stats', ...KEYED, table: ['GetItem'], params: { id: 'audience' },
    request: {},
    responses: { 200: dataReply(audienceStatsSchema) },
    errors: ['AUDIENCE_NOT_FOUND'],
    summary: 'Contact counts of an audience by status',
    description: 'Exact counts per contact status and `growthRate`, the percent change of the contact count over the last 30 days (0 when there was none 30 days ago).',
  },
  update: {
    method: 'PATCH', path: '/api/audiences/{id}', ...KEYED, table: ['GetItem', 'UpdateItem'], params: { id: 'audience' },
    request: { body: updateAudienceBody },
    responses: { 200: dataReply(audienceSchema) },
    errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'],
    summary: 'Change the name or description of an audience',
    description: 'Only the fields given change; `description: null` clears the description.',
    example: { description: 'Weekly product news' },
  },
  delete: {
    method: 'DELETE', path: '/api/audiences/{id}', ...KEYED, table: ['DeleteItem', 'UpdateItem'], params: { id: 'audience' },
    request: {},
    responses: { 200: deletedReply },
    errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'],
    summary: 'Delete an audience (its contacts are kept)',
    description: 'The contacts of a deleted audience stay, keep their `audienceId` and are still listed by it.',
  },
});
