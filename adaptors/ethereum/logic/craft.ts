import { NotSupportedError } from '../../../src/errors.js';
import type { UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';

export async function craft(_ctx: EthContext, _source: VaultSource, _intent: WithdrawalIntent): Promise<UnsignedWithdrawal> {
  throw new NotSupportedError('Ethereum withdrawals are not built yet');
}

export async function release(_ctx: EthContext, _unsigned: UnsignedWithdrawal, _reference: string): Promise<void> {}
