// Shared by the transport that sets the tags and the feedback handler that reads them, which sends nothing and so must not load the SES client.

/** SES message tag names; SES echoes them in `mail.tags` of every event it publishes for the message. */
export const ACCOUNT_TAG = 'postlane-account';
export const EMAIL_TAG = 'postlane-email';
/** The message's tracking id, so that its events can name it without reading the record. */
export const TRACKING_TAG = 'postlane-tracking';
/** What the message tracks (`opens`, `clicks`, `opens-clicks`), when it tracks anything: shared/sending/tracking.ts. */
export const TRACKING_OPTIONS_TAG = 'postlane-track';
/** The broadcast a message belongs to, so that its events count in the broadcast's results (shared/broadcasts/stats-store.ts). */
export const BROADCAST_TAG = 'postlane-broadcast';
