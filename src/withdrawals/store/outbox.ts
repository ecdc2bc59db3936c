import type { OperationStatus } from '../model/operation.js';
import type { WithdrawalView } from '../model/withdrawal-view.js';

/**
 * The outbox: every change of a withdrawal's status appends its event to one Redis stream
 * in the same atomic step as the change (see OperationStore), so there is no change without
 * its event and no event without its change. The webhook dispatcher reads the stream.
 *
 * One event type per step of a withdrawal's life:
 * - `withdrawal.created`         stored, before the sign request goes out (status EXECUTING);
 *                                `withdrawalId` set, `withdrawal.operationID` absent
 * - `withdrawal.sign_requested`  the custody service accepted the sign request; from here on
 *                                `withdrawal.operationID` (and `id`) is the custody operation id
 * - `withdrawal.signed` · `withdrawal.broadcast` · `withdrawal.confirmed` · `withdrawal.failed`
 */
export const WITHDRAWAL_EVENT_TYPES = [
  'withdrawal.created',
  'withdrawal.sign_requested',
  'withdrawal.signed',
  'withdrawal.broadcast',
  'withdrawal.confirmed',
  'withdrawal.failed',
] as const;
export type WithdrawalEventType = (typeof WITHDRAWAL_EVENT_TYPES)[number];

/** The event a move to `status` writes (a new operation starts EXECUTING: `withdrawal.created`). */
export function statusEventType(status: OperationStatus): WithdrawalEventType {
  return status === 'EXECUTING' ? 'withdrawal.created' : (`withdrawal.${status.toLowerCase()}` as WithdrawalEventType);
}

export interface WithdrawalEvent {
  /** Unique per event: receivers dedupe by it (delivery is at-least-once). */
  id: string;
  type: WithdrawalEventType;
  createdAt: string;
  /** The service's own id of the withdrawal, as the POST answered it (`withdrawalId`): the same in every event, from `withdrawal.created` on. */
  withdrawalId: string;
  /** 1, 2, 3… per withdrawal, without gaps: the order of its events. */
  sequence: number;
  /** The withdrawal as `GET /vaults/{vaultId}/withdrawals/{id}` shows it after the change (`withdrawal.withdrawalId` = `withdrawalId`). */
  withdrawal: WithdrawalView;
}

/** What the store's scripts need to write an event; the sequence is counted inside the script. */
export interface PendingEvent {
  id: string;
  type: WithdrawalEventType;
  at: string;
  withdrawalId: string;
  withdrawal: string;
}

/** An event's values as a store script reads them: type, id, at, withdrawal id, withdrawal. */
export type EventArgs = [type: string, id: string, at: string, withdrawalId: string, withdrawal: string];

/** Arguments of an event in a store script, in the order the scripts read them. */
export function eventArgs(e: PendingEvent): EventArgs {
  return [e.type, e.id, e.at, e.withdrawalId, e.withdrawal];
}

/**
 * Lua that appends the event whose arguments start at ARGV[base] to the stream KEYS[outbox],
 * numbering it with the counter KEYS[seq]. Spliced into each script that changes an operation,
 * before the script's other writes: Redis does not undo a script's writes when a later command
 * fails, so the one command that can fail (XADD on a key that is not a stream) comes first.
 */
export function appendEventLua(seqKey: number, outboxKey: number, base: number): string {
  const a = (i: number) => `ARGV[${base + i}]`;
  return `
local seq = tonumber(redis.call('GET', KEYS[${seqKey}]) or '0') + 1
redis.call('XADD', KEYS[${outboxKey}], '*', 'id', ${a(1)}, 'type', ${a(0)}, 'at', ${a(2)}, 'withdrawalId', ${a(3)}, 'sequence', seq, 'withdrawal', ${a(4)})
redis.call('SET', KEYS[${seqKey}], seq)
`;
}

/** An outbox stream entry back as an event. */
export function parseOutboxEntry(fields: string[]): WithdrawalEvent {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i] as string, fields[i + 1] as string);
  return {
    id: f.get('id') as string,
    type: f.get('type') as WithdrawalEventType,
    createdAt: f.get('at') as string,
    withdrawalId: f.get('withdrawalId') as string,
    sequence: Number(f.get('sequence')),
    withdrawal: JSON.parse(f.get('withdrawal') ?? 'null') as WithdrawalView,
  };
}
