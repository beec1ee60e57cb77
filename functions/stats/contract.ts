import { defineArea, KEYED } from '#shared/platform/http/contract.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';
import { statsQuery, statsSchema } from '#shared/messages/schema.ts';

export const stats = defineArea('stats', {
  get: {
    method: 'GET',
    path: '/api/stats',
    ...KEYED,
    // The account's counts of the range's days, all shards, and this month's usage of the quota, in one Query (a range ending before this month reads the usage beside it: GetItem).
    table: ['Query', 'GetItem'],
    request: { query: statsQuery },
    responses: { 200: dataReply(statsSchema) },
    summary: 'Sending statistics per day',
    description:
      "Counts of messages per UTC day from `startDate` to `endDate` (both included, at most 90 days; by default the last 30 days to today): `sent`, `delivered`, `bounced` (permanent bounces), `complained`, `opened` and `clicked` (each message once, at its first open or click), `failed`, each on the day it happened. `rates` are percent of `sent` over the range, one decimal, 0 when nothing was sent. Test-key sends are not counted. `usage` is this calendar month's (UTC) use of the monthly email quota whatever the range: `sent` counts what `emailsRemaining` counts from (live sends, test keys never), `resetsAt` is when the next month starts.",
  },
});
