/**
 * A local Stellar ledger SIMULATOR with a Horizon-compatible HTTP API, for tests and the
 * sandbox. No Stellar node or Horizon can be installed here (see FIELD-NOTES.md), so this
 * stands in for one. It is NOT stellar-core and NOT Horizon: it implements the Horizon subset
 * the Stellar adaptor uses (`/`, `/accounts/:id`, `/accounts/:id/transactions`, `/fee_stats`, `/ledgers`, `/transactions`
 * POST and GET, `/friendbot`) with Horizon's response and problem+json shapes, and applies
 * payment, create_account, change_trust, manage_data and bump_sequence with stellar-core's rules: exact sequence numbers,
 * base fee, base reserve, time bounds, trustlines, and envelope signatures verified through
 * the Stellar SDK (independently of the adaptor's combine). Fee-bump envelopes (CAP-15) are
 * checked as stellar-core checks them (inner signatures and sequence, fee source signature,
 * outer fee rules). A settable surge price keeps low bids in a queue (Horizon's 504) that a
 * fee-bump at 10x the rate replaces. Other operations answer op_not_supported. The root
 * response carries `simulator: true`. Like Horizon, `/accounts/{id}` answers (404s included)
 * carry `Latest-Ledger`, the last ledger the data is as of; history routes do not.
 */
import { createServer, type Server } from 'node:http';
import { Asset, Keypair, Networks, Operation, TransactionBuilder, Account, type Transaction } from '@stellar/stellar-sdk';
import { freePort } from '../../../src/dev/free-port.js';
import { drainQueue, submitEnvelope, type SubmitOutcome } from './apply.js';
import { badRequest, submissionTimeout, transactionFailed, transactionJson } from './horizon-json.js';
import { LedgerState, STROOPS_PER_XLM, type AccountEntry } from './ledger.js';
import { handler } from './server.js';

export interface StellarLedgerOptions {
  /** Defaults to the standalone network's passphrase. */
  passphrase?: string;
  port?: number;
  /** Stroops; default 100 as on the public network. */
  baseFee?: bigint;
  /** Stroops; default 5,000,000 (0.5 XLM) as on the public network. */
  baseReserve?: bigint;
  /** First ledger number; default 50,000,000 (pubnet-like), so new accounts' sequence numbers exceed 2^53. */
  firstLedger?: number;
  /** Closes an empty ledger this often so heights advance like a live network; 0 disables. Default 5000. */
  closeIntervalMs?: number;
}

export interface CreditAsset {
  code: string;
  issuer: string;
}

export interface LocalStellarLedger {
  url: string;
  passphrase: string;
  /** Creates `account` with `xlm` (decimal XLM) or pays it more, from the root account. */
  fund(account: string, xlm: string | number): Promise<void>;
  /** A new funded issuer account for `code`; the simulator keeps its key so `issue` can sign. */
  createAsset(code: string): Promise<CreditAsset>;
  /** Pays `amount` (decimal) of an asset made by `createAsset` to `to` (which needs the trustline). */
  issue(asset: CreditAsset, to: string, amount: string): Promise<void>;
  /** Submits a change_trust signed by `signer` (the tests' own key). */
  changeTrust(signer: Keypair, asset: CreditAsset, limit?: string): Promise<void>;
  /** Submits a manage_data signed by `signer`: sets the data entry `name`, or removes it (`value` null). */
  manageData(signer: Keypair, name: string, value: string | null): Promise<void>;
  /** Submits a base64 envelope as POST /transactions would, without HTTP. */
  submit(envelopeXdr: string): SubmitOutcome;
  account(id: string): AccountEntry | undefined;
  /** Moves the ledger clock forward (time bounds) and closes a ledger at the new time. */
  advanceTime(seconds: number): void;
  closeLedger(): void;
  /**
   * Sets the surge price (stroops per operation slot; undefined = the base fee): bids under it
   * wait in the queue and Horizon answers their submission with 504, as under network load.
   * Lowering it lets the queued ones in.
   */
  setSurgeFee(stroops: bigint | undefined): void;
  /** Hashes waiting in the queue. */
  queued(): string[];
  /** Drops a queued transaction, as stellar-core does with one that waited too long. */
  dropQueued(hash: string): boolean;
  stop(): Promise<void>;
}

const ROOT_BALANCE = 100_000_000_000n * STROOPS_PER_XLM;
const FRIENDBOT_XLM = '10000';

export async function startStellarLedger(opts: StellarLedgerOptions = {}): Promise<LocalStellarLedger> {
  const passphrase = opts.passphrase ?? Networks.STANDALONE;
  const state = new LedgerState({
    baseFee: opts.baseFee ?? 100n,
    baseReserve: opts.baseReserve ?? 5_000_000n,
    firstLedger: opts.firstLedger ?? 50_000_000,
  });
  // Standalone networks derive the root account from the passphrase, as stellar-core does.
  const root = Keypair.master(passphrase);
  state.accounts.set(root.publicKey(), {
    id: root.publicKey(),
    balance: ROOT_BALANCE,
    sequence: 0n,
    subentries: 0,
    trustlines: new Map(),
    data: new Map(),
    lastModifiedLedger: state.latest().sequence,
  });
  const issuers = new Map<string, Keypair>();

  const signedTx = (signer: Keypair, build: (b: TransactionBuilder) => TransactionBuilder): Transaction => {
    const entry = state.accounts.get(signer.publicKey());
    if (!entry) throw new Error(`account ${signer.publicKey()} does not exist on the simulator`);
    const builder = new TransactionBuilder(new Account(entry.id, entry.sequence.toString()), {
      // The helpers outbid any surge price, so funding never waits in the queue.
      fee: (state.surgeFee !== undefined && state.surgeFee > state.rules.baseFee ? state.surgeFee : state.rules.baseFee).toString(),
      networkPassphrase: passphrase,
    }).setTimeout(0);
    const tx = build(builder).build();
    tx.sign(signer);
    return tx;
  };
  const submitOrThrow = (tx: Transaction): SubmitOutcome => {
    const out = submitEnvelope(state, passphrase, tx.toEnvelope().toXDR('base64'));
    if (out.kind === 'applied' && out.record.successful) return out;
    const why =
      out.kind === 'malformed'
        ? out.reason
        : out.kind === 'rejected'
          ? out.transaction
          : out.kind === 'queued'
            ? 'queued under the surge price'
            : out.record.operationCodes.join(',');
    throw new Error(`simulator rejected the helper transaction: ${why}`);
  };
  const fundTx = (account: string, xlm: string) =>
    signedTx(root, (b) =>
      b.addOperation(
        state.accounts.has(account)
          ? Operation.payment({ destination: account, asset: Asset.native(), amount: xlm })
          : Operation.createAccount({ destination: account, startingBalance: xlm }),
      ),
    );

  let baseUrl = '';
  const server: Server = createServer(
    handler({
      state,
      passphrase,
      baseUrl: () => baseUrl,
      friendbot: (addr) => {
        if (state.accounts.has(addr)) return badRequest('addr', 'friendbot funds an account only once; this one exists');
        const out = submitEnvelope(state, passphrase, fundTx(addr, FRIENDBOT_XLM).toEnvelope().toXDR('base64'));
        if (out.kind === 'applied') return { status: 200, body: transactionJson(baseUrl, out.record) };
        if (out.kind === 'rejected') return transactionFailed(out.envelopeXdr, out.resultXdr, { transaction: out.transaction });
        if (out.kind === 'queued') return submissionTimeout();
        return badRequest('addr', out.reason);
      },
    }),
  );
  const port = opts.port ?? (await freePort());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${port}`;
  const interval = opts.closeIntervalMs ?? 5000;
  const timer =
    interval > 0
      ? setInterval(() => {
          state.close();
          drainQueue(state, passphrase);
        }, interval)
      : undefined;
  timer?.unref();

  return {
    url: baseUrl,
    passphrase,
    fund: async (account, xlm) => {
      submitOrThrow(fundTx(account, String(xlm)));
    },
    createAsset: async (code) => {
      const issuer = Keypair.random();
      submitOrThrow(fundTx(issuer.publicKey(), '100'));
      issuers.set(issuer.publicKey(), issuer);
      return { code, issuer: issuer.publicKey() };
    },
    issue: async (asset, to, amount) => {
      const issuer = issuers.get(asset.issuer);
      if (!issuer) throw new Error(`issuer ${asset.issuer} was not created by createAsset`);
      submitOrThrow(signedTx(issuer, (b) => b.addOperation(Operation.payment({ destination: to, asset: new Asset(asset.code, asset.issuer), amount }))));
    },
    changeTrust: async (signer, asset, limit) => {
      submitOrThrow(signedTx(signer, (b) => b.addOperation(Operation.changeTrust({ asset: new Asset(asset.code, asset.issuer), limit }))));
    },
    manageData: async (signer, name, value) => {
      submitOrThrow(signedTx(signer, (b) => b.addOperation(Operation.manageData({ name, value }))));
    },
    submit: (envelopeXdr) => submitEnvelope(state, passphrase, envelopeXdr),
    account: (id) => state.accounts.get(id),
    advanceTime: (seconds) => {
      state.advanceClock(seconds);
      state.close();
    },
    closeLedger: () => {
      state.close();
      drainQueue(state, passphrase);
    },
    setSurgeFee: (stroops) => {
      state.surgeFee = stroops;
      drainQueue(state, passphrase);
    },
    queued: () => [...state.pending.values()].map((p) => p.hash),
    dropQueued: (hash) => {
      for (const [key, p] of state.pending) if (p.hash === hash) return state.pending.delete(key);
      return false;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (timer) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
