/**
 * The account item (`<accountId>` / `ACCOUNT`). shared/accounts/store.ts owns
 * it, but the region router reads its home (client.ts) and other areas count
 * their resources on it inside their own transactions (a list's total is one
 * read, a limit one condition). Its key and those attributes live here, below
 * every area, so that none of them reaches into the accounts area's store.
 */

export const accountKey = (accountId: string) => ({ pk: accountId, sk: 'ACCOUNT' });

/** Where the account item keeps its home region; client.ts reads it to route calls. */
export const HOME_REGION_ATTRIBUTE = 'region';

/** Counter of audiences that are not deleted. */
export const AUDIENCE_COUNT_ATTRIBUTE = 'audienceCount';
/** Counter of templates. */
export const TEMPLATE_COUNT_ATTRIBUTE = 'templateCount';
