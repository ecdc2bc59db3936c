/** Reservation scope of an account's sequence numbers: per ledger, since networks share accounts. */
export function sequenceScope(ledgerId: string, account: string): string {
  return `${ledgerId}:${account}`;
}

/** Claim scope of accounts being created by pending withdrawals of a ledger. */
export function creationScope(ledgerId: string): string {
  return `${ledgerId}:creates`;
}
