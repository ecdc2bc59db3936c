import { NotSupportedError } from '../../../src/errors.js';
import type { SignedTx, UnsignedWithdrawal, VerifiedSignature } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';

export function combine(_ctx: EthContext, _unsigned: UnsignedWithdrawal, _sigs: VerifiedSignature[]): SignedTx[] {
  throw new NotSupportedError('Ethereum combine is not built yet');
}
