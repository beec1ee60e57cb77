import type { TransactionalSendInput } from './schema.ts';
import { overlappingClaim, type Idempotent } from './idempotency.ts';
import { contentOf, deliverOne, parseMailboxField, SUPPRESSED_FOR_TRANSACTIONAL, type SendContext, type SingleSendResponse } from './service.ts';

/** POST /api/transactional/send: one recipient, HTML or a template (variables may nest), optional idempotency key. */
export async function sendTransactional(input: TransactionalSendInput, context: SendContext): Promise<Idempotent<SingleSendResponse>> {
  const from = parseMailboxField(input.from, 'from');
  const replyTo = input.replyTo === undefined ? undefined : parseMailboxField(input.replyTo, 'replyTo');
  const content = contentOf(input);
  return overlappingClaim('transactional/send', input, context, (gate) =>
    deliverOne(
      {
        type: 'transactional',
        from,
        recipients: [input.to],
        cc: [],
        bcc: [],
        replyTo,
        content,
        variables: input.variables,
        attachments: [],
        suppressWhen: SUPPRESSED_FOR_TRANSACTIONAL,
        ...(input.tracking ? { tracking: input.tracking } : {}),
      },
      context,
      'Transactional email sent',
      'to',
      gate,
    ),
  );
}
