import { extractBaseAddress, FeeBumpTransaction, MuxedAccount, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { LedgerState, TxRecord } from './ledger.js';

const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Horizon's decimal amounts always show seven places. */
function horizonAmount(text: string): string {
  const [whole, frac = ''] = text.split('.');
  return `${whole}.${frac.padEnd(7, '0')}`;
}

function assetFields(asset: { isNative(): boolean; getCode(): string; getIssuer(): string; getAssetType(): string }): Record<string, string> {
  return asset.isNative() ? { asset_type: 'native' } : { asset_type: asset.getAssetType(), asset_code: asset.getCode(), asset_issuer: asset.getIssuer() };
}

function destinationFields(destination: string): Record<string, string> {
  if (!destination.startsWith('M')) return { to: destination };
  return { to: extractBaseAddress(destination), to_muxed: destination, to_muxed_id: MuxedAccount.fromAddress(destination, '0').id() };
}

/**
 * Horizon's `/ledgers/{sequence}/payments` records (payment and create_account; the only
 * payment operations the simulator applies) of the ledger's successful transactions, each with
 * its transaction joined (`join=transactions`): memo type and memo.
 */
export function ledgerPayments(state: LedgerState, passphrase: string, sequence: number): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  const txs = [...state.transactions.values()].filter((t: TxRecord) => t.ledger === sequence && t.successful);
  txs.forEach((t, txIndex) => {
    const parsed = TransactionBuilder.fromXDR(t.envelopeXdr, passphrase);
    const inner: Transaction = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
    inner.operations.forEach((op, opIndex) => {
      const id = ((BigInt(sequence) << 32n) | (BigInt(txIndex + 1) << 12n) | BigInt(opIndex + 1)).toString();
      const source = extractBaseAddress(op.source ?? inner.source);
      const common = {
        id,
        paging_token: id,
        transaction_successful: true,
        source_account: source,
        created_at: iso(t.createdAt),
        transaction_hash: t.hash,
        transaction: { hash: t.hash, ledger: t.ledger, memo_type: t.memoType, ...(t.memo !== undefined ? { memo: t.memo } : {}), successful: true },
      };
      if (op.type === 'payment') {
        records.push({
          ...common,
          type: 'payment',
          type_i: 1,
          ...assetFields(op.asset),
          from: source,
          ...destinationFields(op.destination),
          amount: horizonAmount(op.amount),
        });
      } else if (op.type === 'createAccount') {
        records.push({
          ...common,
          type: 'create_account',
          type_i: 0,
          starting_balance: horizonAmount(op.startingBalance),
          funder: source,
          account: op.destination,
        });
      }
    });
  });
  return records;
}
