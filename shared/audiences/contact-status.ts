export const CONTACT_STATUSES = ['subscribed', 'unsubscribed', 'pending', 'bounced', 'complained'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** Statuses a client may give on create and import; `complained` comes only from complaint feedback or an update. */
export const CREATABLE_STATUSES = ['subscribed', 'unsubscribed', 'pending', 'bounced'] as const;

export const DEFAULT_CONTACT_STATUS: ContactStatus = 'subscribed';
