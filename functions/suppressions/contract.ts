import { cursorList, defineArea, KEYED } from '#shared/platform/http/contract.ts';
import { deletedReply } from '#shared/platform/schema/replies.ts';
import { addSuppressionsBody, addSuppressionsReply, listSuppressionsQuery, removeSuppressionQuery, suppressionSchema } from '#shared/suppressions/schema.ts';

/** 1,000 addresses of at most 254 characters, quoted, with room to spare. */
const ADD_MAX_BODY_BYTES = 512 * 1024;

/**
 * The account's suppression list (docs/suppressions.md): full keys and
 * sessions (KEYED). A `sending` key learns only that an address is
 * suppressed, from the send it refuses; test keys read the list and may not
 * change it; lifting a complaint is an admin's, with an explicit confirmation.
 */
export const suppressions = defineArea('suppressions', {
  list: cursorList({
    path: '/api/suppressions',
    name: 'suppressions',
    query: listSuppressionsQuery,
    item: suppressionSchema,
    table: ['Query'],
    summary: 'List the suppression list',
    description:
      "The addresses the account's sends refuse, a page at a time by `cursor`: the list in address order, then the contacts whose own status is bounced or complained (oldest first; `source` {`type`: `contact`, `id`, `audienceId`}). `search` is the start of the address (a prefix, case-insensitive); `reason` keeps one reason. `source` says what put the address there: the `email` that bounced or drew the complaint, the `recipient`'s own unsubscribe link, the `member` or `key` that added it, or the `contact` whose status it is.",
  }),
  add: {
    method: 'POST',
    path: '/api/suppressions',
    ...KEYED,
    // Each address with its suppression.added event, in one transaction.
    table: ['PutItem'],
    maxBodyBytes: ADD_MAX_BODY_BYTES,
    request: { body: addSuppressionsBody },
    responses: { 201: addSuppressionsReply },
    summary: 'Suppress up to 1,000 addresses by hand',
    description:
      'Each address is checked on its own: a bad one is reported in `errors` with its `index`, the others are added. An address already on the list keeps its reason and counts in `already`. A manual suppression stops every send to the address, OTP and transactional included. Test keys get 403 `FORBIDDEN`.',
    example: { emails: ['ada@example.com'] },
  },
  remove: {
    method: 'DELETE',
    path: '/api/suppressions/{email}',
    ...KEYED,
    // The suppression and the address's contacts as read; the deletion with its suppression.removed event in one
    // transaction; then each bounced or complained contact's status change (its claim and its audience's counters).
    table: ['GetItem', 'Query', 'DeleteItem', 'PutItem', 'UpdateItem'],
    params: { email: 'suppressedEmail' },
    request: { query: removeSuppressionQuery },
    responses: { 200: deletedReply },
    errors: ['SUPPRESSION_NOT_FOUND', 'COMPLAINT_CONFIRMATION_REQUIRED', 'CONFLICT'],
    summary: 'Lift one suppression',
    description:
      "Sends reach the address again: its list entry goes, and its contacts whose status is bounced or complained become `subscribed`. A complaint (the recipient reported your mail as spam) is lifted only by an admin or a full key and only with `confirm=complaint` (409 `COMPLAINT_CONFIRMATION_REQUIRED` otherwise; a member's session gets 403 `FORBIDDEN`). An address that is neither on the list nor a bounced or complained contact, or another account's, is 404 `SUPPRESSION_NOT_FOUND`. Test keys get 403 `FORBIDDEN`.",
  },
});
