/**
 * POST /api/email/batch: up to 100 sends in one request, each validated and
 * sent on its own as POST /api/email/send would (docs/api.md, "Batch sends").
 *
 * What fails the whole request and what fails one item: the envelope (not an
 * object, `emails` not an array of 1 to 100, a bad `idempotencyKey`, the body
 * over its limit) is refused before anything runs, by the contract's schema;
 * an item that fails its schema, or whose send is refused (sender, template,
 * quota, every recipient suppressed…), fails alone, its error in its result
 * with `field` a path into the batch (`emails[3].recipients[0]`).
 *
 * Exactly once: the batch's `idempotencyKey` claims the whole request, and
 * each item runs under a key of its own made from it and the item's index. A
 * batch that dies part way (the function crashes or times out, a store
 * fails) gives its claim back, or its lease ends; the retry with the same key
 * and body replays the items that were sent and sends only the others.
 */
import { idempotencyScope } from '#shared/data/idempotency.ts';
import { PostlaneError } from '#shared/errors.ts';
import type * as v from 'valibot';
import { emailBatchItem, type EmailBatchInput, type emailBatchResultReply, type EmailSendInput } from '#shared/schemas/sending.ts';
import { parseInput } from '#shared/schemas/parse.ts';
import { sendEmail, type EmailSendResult, type SendOnce } from './email-send.ts';
import { IdempotencyInProgressError, IdempotencyKeyReusedError, idempotentSend, makeIdempotent, type Idempotent } from './idempotency.ts';
import { quotaLeft, quotaMonth } from './quota.ts';
import type { SendContext } from './sending.ts';

/** The batch result (docs/api.md, "Batch sends"). */
export type EmailBatchResult = Omit<v.InferOutput<typeof emailBatchResultReply>, 'success'>;
type ItemResult = EmailBatchResult['results'][number];

/**
 * Items in flight at once: each sends its own recipients up to 10 at a time
 * (shared/domain/sending.ts), so a batch keeps at most about 100 SES calls
 * open, and 100 one-recipient items take about ten round trips, not a hundred.
 */
const BATCH_CONCURRENCY = 10;

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

/**
 * An item's error as its result. A `field` the send named is inside the item;
 * the idempotency errors name the batch's own key.
 */
function failed(index: number, error: PostlaneError): ItemResult {
  const { field, retryAfter, fields } = error.details;
  const inBatch = error instanceof IdempotencyKeyReusedError || error instanceof IdempotencyInProgressError;
  const path = field === undefined || inBatch || field.startsWith(`emails[${index}]`) ? field : `emails[${index}].${field}`;
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

async function sendItem(item: CheckedItem, batchKey: string | undefined, context: SendContext): Promise<ItemResult> {
  if ('refused' in item) return failed(item.index, item.refused);
  const { principal, now } = context;
  const once: SendOnce = (run) =>
    makeIdempotent(
      {
        accountId: principal.accountId,
        scope: idempotencyScope(principal.env, 'email/batch-item'),
        // The index is last and a number, so no other key and index make the same string.
        key: batchKey === undefined ? undefined : `${batchKey}#${item.index}`,
        payload: item.body,
        now,
      },
      run,
    );
  try {
    const { response } = await sendEmail(item.body, context, once);
    const { emailsRemaining: _, ...result } = response;
    return { index: item.index, success: true, ...result };
  } catch (error) {
    // Anything else is no answer about this item: the batch fails, and its key's retry sends what is left.
    if (error instanceof PostlaneError) return failed(item.index, error);
    throw error;
  }
}

/**
 * `fn` over `items`, at most `limit` at a time, results in order. After a
 * failure nothing more starts, and the failure is thrown once those under
 * way have ended: none keeps sending after the request has been answered.
 */
async function eachBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    for (let index = next++; index < items.length && !failure; index = next++) {
      try {
        results[index] = await fn(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Sends each email of the batch as POST /api/email/send would, up to
 * BATCH_CONCURRENCY at a time, and answers one result per email in order.
 * Some email accepted: the results. None: ALL_EMAILS_FAILED carrying them.
 */
export async function sendEmailBatch(input: EmailBatchInput, context: SendContext): Promise<Idempotent<EmailBatchResult>> {
  const items = input.emails.map(checked);
  const run = async () => {
    const results = await eachBounded(items, BATCH_CONCURRENCY, (item) => sendItem(item, input.idempotencyKey, context));
    // Once, after every item: items charge and give back concurrently, so only a read at the end is the batch's figure.
    const emailsRemaining = await quotaLeft(await quotaMonth(context.principal.accountId, context.now));
    if (results.some((result) => result.success)) return { results, emailsRemaining };
    throw new PostlaneError('ALL_EMAILS_FAILED', `None of the ${results.length} email${results.length === 1 ? '' : 's'} of the batch was sent`, {
      fields: { results, emailsRemaining },
    });
  };
  // Nothing can be sent: the answer follows from the body alone, so there is nothing for a key to guard (and a refused request writes nothing).
  if (items.every((item) => 'refused' in item)) return { response: await run(), replayed: false };
  // What "the same batch" means: each item as read (its send body, or its error), never the raw JSON, which may nest too deep to walk.
  const payload = items.map((item) =>
    'refused' in item ? { error: item.refused.code, message: item.refused.message, field: item.refused.details.field } : item.body,
  );
  return idempotentSend('email/batch', input, context, run, payload);
}
