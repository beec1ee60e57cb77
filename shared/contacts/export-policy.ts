/** Where and how long audience exports live (shared/contacts/export.ts), for the code and the stack's bucket rules alike. */

/** Every export's key starts here; the bucket's lifecycle removes them EXPORT_DAYS after they are written (lib/attachments-bucket.ts). */
export const EXPORTS_PREFIX = 'exports/';
/** Days an export's file is kept. */
export const EXPORT_DAYS = 1;
/** The download link works this long: enough to click it, short enough that a link forwarded or logged soon stops working. */
export const EXPORT_LINK_SECONDS = 15 * 60;

/**
 * The most contacts one export request writes. An export runs inside its
 * request, whose Lambda stops at 28 s (API Gateway's 29 s): measured locally,
 * 100,000 contacts took longer than that (docs/api.md, "Exporting an
 * audience"), so larger audiences wait for the queued export.
 */
export const EXPORT_MAX_CONTACTS = 25_000;
