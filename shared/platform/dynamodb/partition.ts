/**
 * Every key of an account's items starts with the account id, so a query built
 * from a caller's account can only ever reach that account's items.
 * `accountScoped('acc_1', 'CON')` gives `acc_1#CON`.
 */
export function accountScoped(accountId: string, ...parts: string[]): string {
  return [accountId, ...parts].join('#');
}
