import { defineArea, sendEndpoint } from '#shared/platform/http/contract.ts';
import { singleSendResultReply, transactionalSendBody } from '#shared/sending/schema.ts';

export const transactional = defineArea('transactional', {
  send: sendEndpoint({
    path: '/api/transactional/send',
    body: transactionalSendBody,
    reply: singleSendResultReply,
    summary: 'Send one transactional email',
    description:
      'One message to one address, from `content` or a `templateId` with `variables`; only bounces and complaints stop it, never an unsubscribe. An `idempotencyKey` makes a retry answer the first send again.',
    example: {
      to: 'ada@example.com',
      from: 'hello@example.com',
      subject: 'Your receipt',
      content: '<p>Thanks for your order.</p>',
      idempotencyKey: 'order-1234',
    },
  }),
});
