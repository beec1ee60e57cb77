/**
 * Every key of an account's items starts with the account id, so a query built
 * from a caller's account can only ever reach that account's items.
 * `accountScoped('acc_1', 'CON')` gives `acc_1#CON`.
 */
export function accountScoped(accountId: string, ...parts: string[]): string {
  return [accountId, ...parts].join('#');
}

/**
 * An account's statistics partition (`acc_1#STATS`): its daily counts
 * (shared/messages/stats-store.ts) and its monthly usage
 * (shared/accounts/usage-store.ts), side by side so that one Query reads both.
 */
export function statisticsPartition(accountId: string): string {
  return accountScoped(accountId, 'STATS');
}
