import { NotSupportedError } from '../../../src/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';

export async function broadcast(_ctx: EthContext, _tx: SignedTx): Promise<BroadcastResult> {
  throw new NotSupportedError('Ethereum broadcast is not built yet');
}
