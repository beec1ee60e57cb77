/**
 * POST /api/email/batch: up to 100 sends in one request, each validated and
 * answered on its own as POST /api/email/send would (docs/api.md, "Batch sends").
 *
 * What fails the whole request and what fails one item: the envelope (not an
 * object, `emails` not an array of 1 to 100, a bad `idempotencyKey`, the body
 * over its limit) is refused before anything runs, by the contract's schema;
 * an item that fails its schema, or whose send is refused (sender, template,
 * quota, every recipient suppressed…), fails alone, its error in its result
 * with `field` a path into the batch (`emails[3].recipients[0]`).
 *
 * The items are sent together, at the cost of one send (docs/data-model.md,
 * "Round trips per request"): one wave of reads for all of them, one quota
 * charge, one batch write of every record and event (shared/sending/service.ts,
 * `deliverAll`). Exactly once: the batch's `idempotencyKey` is claimed beside
 * those reads and completed in that write. A batch that fails before any
 * message left gives its key back, so its retry sends everything; one whose
 * messages left but whose records could not be written completes its key
 * with its answer, so its retry replays it and sends nothing again.
 */
import { PostlaneError } from '#shared/platform/errors.ts';
import type * as v from 'valibot';
import { emailBatchItem, type EmailBatchInput, type emailBatchResultReply, type EmailSendInput } from './schema.ts';
import { parseInput } from '#shared/platform/schema/parse.ts';
import { resolveAttachments } from '#shared/attachments/service.ts';
import { emailDeliveryOf, sendAnswer, type EmailSendResult } from './send-answer.ts';
import { EffectCommittedError, overlappingClaim, type ClaimGate, type Idempotent } from './idempotency.ts';
import { quotaLeft, quotaMonthFor } from './quota.ts';
import { deliverAll, isReport, UnrecordedDeliveryError, type Delivery, type DeliveryOutcome, type SendContext } from './service.ts';

/** The batch result (docs/api.md, "Batch sends"). */
export type EmailBatchResult = Omit<v.InferOutput<typeof emailBatchResultReply>, 'success'>;
type ItemResult = EmailBatchResult['results'][number];

/** An item as read: its send body, or why it cannot be sent. */
type CheckedItem = { index: number; body: EmailSendInput } | { index: number; refused: PostlaneError };

function checked(item: unknown, index: number): CheckedItem {
  try {
    return { index, body: parseInput(emailBatchItem, item, `emails[${index}]`) };
  } catch (error) {
    if (error instanceof PostlaneError) return { index, refused: error };
    throw error;
  }
}

/** An item's error as its result; a `field` the send named is inside the item. */
function failed(index: number, error: PostlaneError): ItemResult {
  const { field, retryAfter, fields } = error.details;
  const path = field === undefined || field.startsWith(`emails[${index}]`) ? field : `emails[${index}].${field}`;
  // A send where every recipient failed carries its result; the batch answers the quota once, for all items.
  const result = fields as Partial<EmailSendResult> | undefined;
  return {
    index,
    success: false,
    error: error.code,
    message: error.message,
    ...(path === undefined ? {} : { field: path }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(result?.successfulEmails ? { successfulEmails: result.successfulEmails } : {}),
    ...(result?.failedEmails ? { failedEmails: result.failedEmails } : {}),
    ...(result?.recipientCount === undefined ? {} : { recipientCount: result.recipientCount }),
  };
}

/** An item's delivery, or its refusal: its body's own (`from`, attachments), found before anything is sent. */
async function deliveryOf(item: CheckedItem, { principal, now }: SendContext): Promise<Delivery | PostlaneError> {
  if ('refused' in item) return item.refused;
  try {
    const delivery = emailDeliveryOf(item.body);
    return delivery(await resolveAttachments(principal.accountId, item.body.attachments, now));
  } catch (error) {
    if (error instanceof PostlaneError) return error;
    throw error;
  }
}

/** Each item's result from its delivery's outcome, in order. */
function resultsOf(prepared: readonly (Delivery | PostlaneError)[], outcomes: readonly DeliveryOutcome[]): ItemResult[] {
  let next = 0;
  return prepared.map((delivery, index) => {
    if (delivery instanceof PostlaneError) return failed(index, delivery);
    const outcome = outcomes[next++]!;
    if (!isReport(outcome)) return failed(index, outcome);
    try {
      const { emailsRemaining: _, ...result } = sendAnswer(outcome, delivery.recipients.length);
      return { index, success: true, ...result };
    } catch (error) {
      if (error instanceof PostlaneError) return failed(index, error);
      throw error;
    }
  });
}

/** Some item accepted: the results. None: ALL_EMAILS_FAILED carrying them. */
function answer(results: ItemResult[], emailsRemaining: number): EmailBatchResult {
  if (results.some((result) => result.success)) return { results, emailsRemaining };
  throw new PostlaneError('ALL_EMAILS_FAILED', `None of the ${results.length} email${results.length === 1 ? '' : 's'} of the batch was sent`, {
    fields: { results, emailsRemaining },
  });
}

/** The figure every report shares; without one (nothing got as far as the quota) a read. */
async function emailsRemainingOf(outcomes: readonly DeliveryOutcome[], { principal, now }: SendContext): Promise<number> {
  return outcomes.find(isReport)?.emailsRemaining ?? quotaLeft(await quotaMonthFor(principal, now));
}

/**
 * Sends each email of the batch as POST /api/email/send would, all together
 * (see the module comment), and answers one result per email in order.
 */
export async function sendEmailBatch(input: EmailBatchInput, context: SendContext): Promise<Idempotent<EmailBatchResult>> {
  const items = input.emails.map(checked);
  const run = async (gate: ClaimGate) => {
    const prepared = await Promise.all(items.map((item) => deliveryOf(item, context)));
    const deliveries = prepared.filter((delivery): delivery is Delivery => !(delivery instanceof PostlaneError));
    const claim = {
      held: gate.held,
      // The key completes in the records' own write, with the answer the request gives: only a batch that sent something has one to keep.
      completion: (outcomes: readonly DeliveryOutcome[]) => {
        const results = resultsOf(prepared, outcomes);
        const done = results.some((result) => result.success) && gate.completion({ results, emailsRemaining: outcomes.find(isReport)!.emailsRemaining });
        return done ? [done] : [];
      },
    };
    let outcomes: DeliveryOutcome[];
    try {
      outcomes = await deliverAll(deliveries, context, claim);
    } catch (error) {
      // Messages left: a retry with the key must replay this answer, never send again.
      if (error instanceof UnrecordedDeliveryError) {
        throw new EffectCommittedError(
          { results: resultsOf(prepared, error.outcomes), emailsRemaining: await emailsRemainingOf(error.outcomes, context) },
          error.cause,
        );
      }
      throw error;
    }
    return answer(resultsOf(prepared, outcomes), await emailsRemainingOf(outcomes, context));
  };
  // Nothing can be sent: the answer follows from the body alone, so there is nothing for a key to guard (and a refused request writes nothing).
  if (items.every((item) => 'refused' in item)) return { response: await run({ held: Promise.resolve(), completion: () => undefined }), replayed: false };
  // What "the same batch" means: each item as read (its send body, or its error), never the raw JSON, which may nest too deep to walk.
  const payload = items.map((item) =>
    'refused' in item ? { error: item.refused.code, message: item.refused.message, field: item.refused.details.field } : item.body,
  );
  return overlappingClaim('email/batch', input, context, run, payload);
}
