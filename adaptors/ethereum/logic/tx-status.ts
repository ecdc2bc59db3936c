import { NotSupportedError } from '../../../src/errors.js';
import type { TxStatus, UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';

export async function txStatus(_ctx: EthContext, _txid: string, _unsigned: UnsignedWithdrawal): Promise<TxStatus> {
  throw new NotSupportedError('Ethereum txStatus is not built yet');
}
