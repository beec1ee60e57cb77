/** Where and how long audience exports live (shared/contacts/export.ts), for the code and the stack's bucket rules alike. */

/** Every export's key starts here; the bucket's lifecycle removes them EXPORT_DAYS after they are written (lib/attachments-bucket.ts). */
export const EXPORTS_PREFIX = 'exports/';
/** Days an export's file is kept; its record (shared/contacts/export-store.ts) expires with it. */
export const EXPORT_DAYS = 1;
/** The download link works this long: enough to click it, short enough that a link forwarded or logged soon stops working. */
export const EXPORT_LINK_SECONDS = 15 * 60;

/**
 * The most contacts an export writes within its request, answered 201
 * `ready`; a larger audience is queued (202 `queued`) for the export worker.
 * The request's Lambda stops at 28 s (API Gateway's 29 s), and measured
 * locally 100,000 contacts took longer than that (docs/api.md, "Exporting an
 * audience"). EXPORT_SYNC_MAX_CONTACTS in the environment overrides it (tests
 * queue a small audience with it rather than seed 25,000 contacts).
 */
export const EXPORT_MAX_CONTACTS = 25_000;

/**
 * The export worker's Lambda timeout: an audience of 1,000,000 contacts is
 * about 150 MB of items, 1,000 Query pages of EXPORT_PAGE_ITEMS, 250 in turn
 * on each of EXPORT_READ_SEGMENTS streams (tens of milliseconds each: seconds,
 * not minutes), plus the CSV's CPU at the worker's memory; 5 minutes leaves room.
 */
export const EXPORT_WORKER_TIMEOUT_SECONDS = 300;
/** The worker's memory: the rows are held until the last page names every custom field column, and CPU grows with memory. */
export const EXPORT_WORKER_MEMORY_MB = 1_024;
/** Receives of one export job before its queue moves it to the dead letters; the last failing attempt ends the record `failed`. */
export const EXPORT_MAX_RECEIVES = 3;
/** One export per invocation: each is long, and one failing must not hold another. */
export const EXPORT_WORKER_BATCH_SIZE = 1;
/**
 * Exports running at once per region: SQS's least cap. Exports are rare and
 * each reads a whole audience; two at a time keep them off the table's and
 * the region's concurrency (docs/operations.md, "Concurrency").
 */
export const EXPORT_MAX_CONCURRENCY = 2;

/**
 * A record still `queued` or `running` this long after it was made has no
 * worker left: every receive timed out (lib/worker-queue.ts gives the queue a
 * visibility of six worker timeouts) and the job is in the dead letters.
 * Reading it ends it `failed`, so nothing waits on it for ever.
 */
export const EXPORT_STALE_MS = EXPORT_MAX_RECEIVES * 6 * EXPORT_WORKER_TIMEOUT_SECONDS * 1000 + 60_000;

/**
 * Parallel Queries over disjoint ranges of the audience's partition (contact
 * ids are time-ordered, so ranges of creation time split it), merged in
 * order: one stream of pages waits on each round trip in turn.
 */
export const EXPORT_READ_SEGMENTS = 4;

/**
 * The most contacts one Query page of an export reads (its Limit). In AWS the
 * 1 MB page cap binds about there (a contact item is some 700 bytes), so the
 * round trips barely change; DynamoDB Local, asked without a Limit, reads and
 * parses every item from the page's start to the end of the key range before
 * it cuts the page at 1 MB, so each page cost as much as the rest of the
 * range (docs/performance.md, "export").
 */
export const EXPORT_PAGE_ITEMS = 1_000;
