import { defineArea, KEYED, resource } from '#shared/platform/http/contract.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliverySchema,
  listDeliveriesQuery,
  updateWebhookBody,
  webhookListReply,
  webhookSchema,
} from '#shared/webhooks/schema.ts';

/**
 * Webhook endpoints over the API: `full` keys only (KEYED), since an endpoint
 * receives every event of the account, contacts' addresses included, and a
 * `sending` key is the one handed to the least trusted code.
 * functions/webhooks/deliver.ts, the queue's worker, is no route (lib/webhooks.ts).
 */
const webhook = resource('/api/webhooks', 'webhook', 'WEBHOOK_NOT_FOUND', { schema: webhookSchema });

export const webhooks = defineArea('webhooks', {
  create: webhook.create({
    body: createWebhookBody,
    reply: createdWebhookSchema,
    // The endpoint and the account's endpoint count, in one transaction.
    table: ['PutItem', 'UpdateItem'],
    errors: ['INVALID_WEBHOOK_URL', 'WEBHOOK_LIMIT_REACHED'],
    summary: 'Create a webhook endpoint',
    description:
      'Events of the types in `events` (or `["*"]` for all) are POSTed to `url`, signed to the Standard Webhooks specification with `secret`, which this answer alone shows: keep it. At most 20 endpoints an account.',
    example: { url: 'https://example.com/webhooks/postlane', events: ['email.bounced', 'contact.unsubscribed'], description: 'CRM sync' },
  }),
  list: {
    method: 'GET',
    path: '/api/webhooks',
    ...KEYED,
    table: ['Query'],
    request: {},
    responses: { 200: webhookListReply },
    summary: 'List webhook endpoints',
    description: 'Every endpoint of the account (at most 20, so one page), newest first, without secrets.',
  },
  get: webhook.get({
    table: ['GetItem'],
    summary: 'Get a webhook endpoint',
    description: 'The endpoint without its secret; `enabled: false` with `disabledAt` when its deliveries failed for 24 hours.',
  }),
  update: webhook.update({
    body: updateWebhookBody,
    table: ['UpdateItem'],
    errors: ['INVALID_WEBHOOK_URL'],
    summary: 'Change a webhook endpoint',
    description: 'Only the fields given change; `enabled: true` turns a disabled endpoint back on and starts its failure count afresh.',
    example: { events: ['*'], enabled: true },
  }),
  delete: webhook.delete({
    // The endpoint, and its place under the limit given back.
    table: ['DeleteItem', 'UpdateItem'],
    summary: 'Delete a webhook endpoint',
    description: 'Nothing more is delivered to it; its deliveries expire with the retention.',
  }),
  sendTest: {
    method: 'POST',
    path: '/api/webhooks/{id}/test',
    ...KEYED,
    // The endpoint and the slow marks; the two test-event windows; the delivery.
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    queues: ['webhooks', 'webhooksSlow'],
    params: { id: 'webhook' },
    request: {},
    responses: { 200: dataReply(deliverySchema) },
    errors: ['WEBHOOK_NOT_FOUND'],
    summary: 'Send a test event to a webhook endpoint',
    description:
      'Delivers a `webhook.test` event to this endpoint only, also when it is disabled (then one attempt, never retried); answers the delivery, `pending` until the receiver answers. The event is not in the event log. At most 10 test events an endpoint and 30 an account in a minute: 429 `RATE_LIMIT_EXCEEDED` with `retryAfter` beyond.',
  },
  deliveries: webhook.cursorList({
    sub: 'deliveries',
    name: 'deliveries',
    query: listDeliveriesQuery,
    item: deliverySchema,
    table: ['GetItem', 'Query'],
    summary: "List a webhook endpoint's deliveries",
    description:
      'Newest first, with their status (`pending`, `succeeded`, `failed`), attempts and last answer; pass `pagination.nextCursor` back as `cursor` until it is null.',
  }),
  retry: {
    method: 'POST',
    path: '/api/webhooks/{id}/deliveries/{deliveryId}/retry',
    ...KEYED,
    table: ['GetItem', 'UpdateItem'],
    queues: ['webhooks', 'webhooksSlow'],
    params: { id: 'webhook', deliveryId: 'delivery' },
    request: {},
    responses: { 200: dataReply(deliverySchema) },
    errors: ['WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND', 'CONFLICT'],
    summary: 'Deliver again now',
    description:
      'Makes the delivery `pending` and attempts it now, whatever its state (a `failed` one gets one more attempt). 409 `CONFLICT` while an attempt is in progress or when the endpoint is disabled.',
  },
});
