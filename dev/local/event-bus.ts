/**
 * EventBridge has no local emulator: this stand-in of the fan-out's bus
 * (shared/webhooks/event-bus.ts) records every PutEvents call and answers as
 * EventBridge does, an entry at a time, refusing the entries `refuse` names
 * (as EventBridge refuses some under throttling) or failing the whole call.
 */
import type { PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { EventBus } from '#shared/webhooks/event-bus.ts';

export interface RecordingEventBus extends EventBus {
  /** Each call's entries, in order. */
  readonly calls: PutEventsRequestEntry[][];
  /** Entries accepted, across the calls. */
  readonly accepted: PutEventsRequestEntry[];
}

/** `refuse(entry, call)`: true to refuse the entry in the call-th call (from 1); `fail(call)`: true to throw the whole call. */
export function recordingEventBus(
  faults: { refuse?: (entry: PutEventsRequestEntry, call: number) => boolean; fail?: (call: number) => boolean } = {},
): RecordingEventBus {
  const calls: PutEventsRequestEntry[][] = [];
  const accepted: PutEventsRequestEntry[] = [];
  return {
    calls,
    accepted,
    async putEvents(entries) {
      calls.push(entries);
      const call = calls.length;
      if (entries.length > 10)
        throw Object.assign(new Error('1 validation error: entries must have length less than or equal to 10'), { name: 'ValidationException' });
      if (faults.fail?.(call)) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      const Entries: PutEventsResultEntry[] = entries.map((entry, index) => {
        if (faults.refuse?.(entry, call)) return { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' };
        accepted.push(entry);
        return { EventId: `${call}-${index}` };
      });
      return { Entries, FailedEntryCount: Entries.filter((entry) => entry.ErrorCode).length };
    },
  };
}
