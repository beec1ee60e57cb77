/**
 * SES feedback reaches Postlane through EventBridge, best effort: an event
 * lost on the way (a rule disabled, a day of failures past the dead-letter
 * queue's retention) leaves a bounced address subscribed. SES's account-level
 * suppression list holds every hard bounce and complaint regardless, so a
 * scheduled run reads what was added since the last one and applies what
 * feedback would have applied, through the same code (feedback.ts).
 */
import { findEmailBySesMessageId } from '#shared/messages/service.ts';
import { getReconciledUntil, putReconciledUntil } from './reconciliation-cursor-store.ts';
import { suppressedBetween, suppressingMessageId } from '#shared/sending/ses-suppression-list.ts';
import { log } from '#shared/platform/log.ts';
import { applyBounceOrComplaint, type FeedbackReason } from './service.ts';

/**
 * Each run also rereads this much before the last one's end: SES may list an
 * address a little after the time it gives it. Reapplying changes nothing.
 */
export const RECONCILIATION_OVERLAP_MS = 15 * 60_000;

const REASONS: Record<'BOUNCE' | 'COMPLAINT', FeedbackReason> = { BOUNCE: 'bounced', COMPLAINT: 'complained' };

export interface ReconciliationRun {
  /** Addresses SES listed in the window. */
  listed: number;
  /** Of those, the ones whose message Postlane sent, applied (again) to that message's account. */
  applied: number;
}

/**
 * Applies SES's suppressions from the last run's end (less the overlap) to
 * `now`, then moves the cursor; a run that fails leaves it, so the next one
 * reads the window again. An address put on the list by hand, or by a message
 * Postlane has no record of, belongs to no account: it is counted and skipped.
 */
export async function reconcileSuppressionList(now: Date): Promise<ReconciliationRun> {
  const last = await getReconciledUntil();
  const since = last && new Date(last.getTime() - RECONCILIATION_OVERLAP_MS);
  const run: ReconciliationRun = { listed: 0, applied: 0 };
  for await (const entry of suppressedBetween(since, now)) {
    run.listed++;
    const messageId = await suppressingMessageId(entry.email);
    const owner = messageId === undefined ? undefined : await findEmailBySesMessageId(messageId);
    if (!owner) continue;
    await applyBounceOrComplaint(owner, REASONS[entry.reason], [entry.email], now);
    run.applied++;
  }
  await putReconciledUntil(now);
  log.info('SES suppression list reconciled', { since: since?.toISOString(), until: now.toISOString(), ...run });
  return run;
}
