import { defineArea, KEYED, resource, SEND_ERRORS } from '#shared/platform/http/contract.ts';
import {
  broadcastSchema,
  broadcastStatsSchema,
  broadcastTestReply,
  createBroadcastBody,
  listBroadcastsQuery,
  segmentCountBody,
  segmentCountSchema,
  sendBroadcastBody,
  testBroadcastBody,
  updateBroadcastBody,
} from '#shared/broadcasts/schema.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';

/** The checks of a broadcast's sender, template and content (create, update, send): domain, template and broadcast reads. */
const CHECKS_SENDER = ['GetItem', 'BatchGetItem'] as const;

const broadcast = resource('/api/broadcasts', 'broadcast', 'BROADCAST_NOT_FOUND', { schema: broadcastSchema });
/** The audience a segment is counted in: the count is the broadcasts' (their segments), under the audience it reads. */
const audience = resource('/api/audiences', 'audience', 'AUDIENCE_NOT_FOUND', { schema: segmentCountSchema });

/** Scheduling or moving a schedule (create, or update when it exists: shared/broadcasts/scheduler.ts), or removing it. */
const SCHEDULES_MOVED = ['CreateSchedule', 'UpdateSchedule', 'DeleteSchedule'] as const;
const SCHEDULE_REMOVED = ['DeleteSchedule'] as const;

export const broadcasts = defineArea('broadcasts', {
  create: broadcast.create({
    body: createBroadcastBody,
    table: [...CHECKS_SENDER, 'PutItem'],
    errors: ['AUDIENCE_NOT_FOUND', 'TEMPLATE_NOT_FOUND', 'SENDER_NOT_VERIFIED'],
    summary: 'Create a broadcast',
    description:
      "A broadcast mails one message to each subscribed contact of an audience (or of a `segment` of it), minus the account's suppression list. It starts as a `draft`; `POST /api/broadcasts/{id}/send` sends it.",
    example: {
      audienceId: 'aud_0BqM3xYfZk2T',
      from: 'Acme <news@acme.example>',
      subject: 'Our November news, {{firstName}}',
      content: '<p>Hi {{firstName}}, here is what is new.</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
      segment: { tags: ['beta'] },
    },
  }),
  list: broadcast.list({
    name: 'broadcasts',
    query: listBroadcastsQuery,
    item: broadcastSchema,
    table: ['Query'],
    summary: 'List broadcasts',
    description: "One page of the account's broadcasts, newest first, optionally of one `status`, each with its progress counts.",
  }),
  get: broadcast.get({
    table: ['GetItem'],
    summary: 'Get a broadcast with its progress',
    description: '`counts` are live while it sends: `recipients` (the snapshot taken when sending started), `sent`, `suppressed`, `failed` and `remaining`.',
  }),
  update: broadcast.update({
    body: updateBroadcastBody,
    table: [...CHECKS_SENDER, 'UpdateItem'],
    // A scheduled broadcast's new time moves its schedule; no time sends it back to draft.
    scheduler: SCHEDULES_MOVED,
    errors: ['BROADCAST_NOT_EDITABLE', 'AUDIENCE_NOT_FOUND', 'TEMPLATE_NOT_FOUND', 'SENDER_NOT_VERIFIED'],
    summary: 'Change a draft or scheduled broadcast',
    description: 'Only while `draft` or `scheduled`; otherwise 409 `BROADCAST_NOT_EDITABLE`.',
    example: { subject: 'Our November news' },
  }),
  delete: broadcast.delete({
    table: ['GetItem', 'DeleteItem'],
    scheduler: SCHEDULE_REMOVED,
    errors: ['BROADCAST_NOT_EDITABLE'],
    summary: 'Delete a draft or scheduled broadcast',
    description: 'Only while `draft` or `scheduled` (its schedule goes with it); otherwise 409 `BROADCAST_NOT_EDITABLE`.',
  }),
  send: {
    method: 'POST',
    path: '/api/broadcasts/{id}/send',
    ...KEYED,
    table: ['GetItem', 'UpdateItem', 'Query'],
    queues: ['broadcast'],
    scheduler: SCHEDULES_MOVED,
    params: { id: 'broadcast' },
    request: { body: sendBroadcastBody },
    responses: { 202: dataReply(broadcastSchema) },
    errors: ['BROADCAST_NOT_FOUND', 'BROADCAST_NOT_EDITABLE', 'SENDER_NOT_VERIFIED'],
    summary: 'Send a broadcast now, at a time, or resume it',
    description:
      'A `draft` or `scheduled` broadcast starts sending now, or at `scheduledAt` (given here or stored; at most 30 days ahead). A `paused` one resumes where it stopped, without repeating anyone, and reaches every recipient of its snapshot. The key used fixes the mode: with a test key, what is sent from then on is recorded without SES and without quota. `sending`, `sent` and `cancelled` ones answer 409 `BROADCAST_NOT_EDITABLE`.',
    example: {},
  },
  cancel: {
    method: 'POST',
    path: '/api/broadcasts/{id}/cancel',
    ...KEYED,
    // The status and the marker senders check between groups, in one transaction (UpdateItem and PutItem).
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    scheduler: SCHEDULE_REMOVED,
    params: { id: 'broadcast' },
    request: {},
    responses: { 200: dataReply(broadcastSchema) },
    errors: ['BROADCAST_NOT_FOUND', 'BROADCAST_NOT_EDITABLE'],
    summary: 'Cancel a broadcast',
    description:
      'What was sent stays sent; nothing more goes out: once this answers, at most one group of 10 messages already handed to SES follows. A `sent` or `cancelled` broadcast answers 409 `BROADCAST_NOT_EDITABLE`.',
  },
  test: broadcast.action({
    sub: 'test',
    body: testBroadcastBody,
    reply: broadcastTestReply,
    table: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem', 'BatchWriteItem'],
    ses: ['SendEmail'],
    secrets: ['linkSigning'],
    queues: ['retry'],
    attachments: ['storeContent'],
    errors: SEND_ERRORS.filter((code) => !code.startsWith('IDEMPOTENCY')),
    summary: 'Send a test copy of a broadcast',
    description:
      "One copy to each of 1 to 5 addresses, the subject prefixed `[Test] `, with the first matching contact's data (or only the broadcast's `variables`). Charged like any send.",
    example: { to: ['me@acme.example'] },
  }),
  stats: broadcast.get({
    sub: 'stats',
    reply: broadcastStatsSchema,
    // The broadcast's counters, and one Query of its results' shards.
    table: ['GetItem', 'Query'],
    summary: "A broadcast's results",
    description:
      '`recipients` and `sent` as the broadcast counts them; `delivered`, `bounced`, `complained`, `opened`, `clicked` (each message once, the first time) as their events are recorded. Opens and clicks count only when the broadcast tracks them.',
  }),
  segmentCount: audience.action({
    sub: 'segment-count',
    body: segmentCountBody,
    reply: dataReply(segmentCountSchema),
    // The audience and its counters, then (with a segment) a count over its subscribed contacts.
    table: ['GetItem', 'BatchGetItem', 'Query'],
    summary: 'Count the recipients of a segment',
    description:
      "How many subscribed contacts of the audience a broadcast with this `segment` would reach, before sending (the account's suppression list is taken out when sending starts). Exact up to 10,000 subscribed contacts examined; beyond, `exact` is false and `recipients` an estimate from those examined.",
    example: { segment: { tags: ['beta'] } },
  }),
});
