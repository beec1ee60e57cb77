import { defineArea, sendEndpoint } from '#shared/platform/http/contract.ts';
import { otpSendBody, singleSendResultReply } from '#shared/sending/schema.ts';

export const otp = defineArea('otp', {
  send: sendEndpoint({
    path: '/api/otp/send',
    aliases: ['/api/otp'],
    body: otpSendBody,
    reply: singleSendResultReply,
    // The code's message is fixed (shared/sending/otp-template.ts) and shows no signed link, so it never needs the link-signing key.
    secrets: [],
    summary: 'Send a one-time code',
    description:
      'POST /api/otp is the same endpoint under a second path. Takes `to` or `email`; an address gets a limited number of codes per 5 minutes (429 `RATE_LIMIT_EXCEEDED` with `retryAfter`), and an `idempotencyKey` makes a retry answer the first send again.',
    example: { to: 'ada@example.com', from: 'hello@example.com', code: '482913', appName: 'Acme', expiresInMinutes: 10 },
  }),
});
