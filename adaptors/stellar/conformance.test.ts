import { randomBytes } from 'node:crypto';
import { FeeBumpTransaction, Keypair, TransactionBuilder, type Asset } from '@stellar/stellar-sdk';
import pino from 'pino';
import { stellarFamily } from './index.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { startStellarLedger } from './local-node/index.js';
import { testRedis } from '../../test/helpers/redis.js';
import { describeConformance, type DecodedTransfer } from '../../test/conformance/conformance.js';
import { ed25519Signer } from '../../test/conformance/signers.js';

/** Stroops as the decimal XLM / asset amount the SDK and the simulator's helpers take. */
const decimal = (stroops: bigint): string => {
  const s = stroops.toString().padStart(8, '0');
  return `${s.slice(0, -7)}.${s.slice(-7)}`;
};
/** The SDK's decimal amount string as stroops. */
const stroopsOf = (amount: string): bigint => {
  const [int = '0', frac = ''] = amount.split('.');
  if (frac.length > 7) throw new Error(`more than 7 decimals: ${amount}`);
  return BigInt(int + frac.padEnd(7, '0'));
};

describeConformance(
  'stellar (stellardev on the local Horizon-compatible simulator)',
  async () => {
    const ledger = await startStellarLedger({ closeIntervalMs: 0 });
    const usdc = await ledger.createAsset('USDC');
    const { redis, prefix } = testRedis();
    const adaptor = stellarFamily.create('stellardev', stellarFamily.optionsSchema.parse({ horizonUrl: ledger.url, assets: [usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch,
      reservations: new Reservations(redis, prefix),
    });

    // The vault key: the custody-style signer signs withdrawals, the SDK keypair of the same
    // seed only signs setup transactions (its trustline).
    const seed = randomBytes(32);
    const signer = ed25519Signer(seed);
    const vault = Keypair.fromRawEd25519Seed(seed);
    if (adaptor.addressFromPublicKey(signer.publicKey) !== vault.publicKey()) throw new Error('signer and keypair disagree');
    /** Keys of every account the setup controls, and which of them trust USDC. */
    const keys = new Map<string, Keypair>([[vault.publicKey(), vault]]);
    const trusting = new Set<string>();

    const ensureTrustline = async (address: string): Promise<void> => {
      if (trusting.has(address)) return;
      const kp = keys.get(address);
      if (!kp) throw new Error(`no key for ${address}: cannot add its USDC trustline`);
      // A trustline is a subentry: the account needs one more base reserve above its two.
      if (!ledger.account(address)) await ledger.fund(address, '2');
      await ledger.changeTrust(kp, usdc);
      trusting.add(address);
    };

    const symbolOf = (asset: Asset): string => {
      if (asset.isNative()) return 'XLM';
      return asset.getCode() === usdc.code && asset.getIssuer() === usdc.issuer ? usdc.code : `${asset.getCode()}:${asset.getIssuer()}`;
    };

    return {
      adaptor,
      signer,
      foreignAddresses: ['0x8240Fd14931292B85C850514c8a4eBd35E56EDA4', 'bc1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlw6qz2yj'],
      // Native: create_account with exactly `amount` (>= 2 base reserves) or a payment on top.
      // Credit: the account gets a trustline first (and 2 XLM if it does not exist yet).
      fund: async (address, asset, amount) => {
        if (asset.native) return ledger.fund(address, decimal(amount));
        if (asset.contract !== usdc.issuer) throw new Error(`the setup only issues ${usdc.code}, not ${asset.symbol}`);
        await ensureTrustline(address);
        await ledger.issue(usdc, address, decimal(amount));
      },
      // XLM (or no asset): an account that does not exist yet, holding nothing; the withdrawal
      // creates it. USDC: an existing account with a trustline and no USDC yet.
      recipient: async (asset) => {
        const kp = Keypair.random();
        keys.set(kp.publicKey(), kp);
        if (asset && !asset.native) await ensureTrustline(kp.publicKey());
        return kp.publicKey();
      },
      decode: (signed): DecodedTransfer => {
        const xdr = /^[0-9a-f]+$/i.test(signed.serialized) ? Buffer.from(signed.serialized, 'hex').toString('base64') : signed.serialized;
        const tx = TransactionBuilder.fromXDR(xdr, ledger.passphrase);
        if (tx instanceof FeeBumpTransaction) throw new Error('unexpected fee-bump envelope');
        if (tx.operations.length !== 1) throw new Error(`expected one operation, got ${tx.operations.length}`);
        const op = tx.operations[0]!;
        const from = op.source ?? tx.source;
        const fee = BigInt(tx.fee);
        if (op.type === 'payment') return { from, to: op.destination, asset: symbolOf(op.asset), amount: stroopsOf(op.amount), fee };
        if (op.type === 'createAccount') return { from, to: op.destination, asset: 'XLM', amount: stroopsOf(op.startingBalance), fee };
        throw new Error(`unexpected operation ${op.type}`);
      },
      // Submissions apply in a ledger of their own; closing one more is harmless and covers
      // an adaptor that counts confirmations from the ledger after.
      settle: async () => {
        ledger.closeLedger();
      },
      stop: async () => {
        redis.disconnect();
        await ledger.stop();
      },
    };
  },
  { tokens: true },
);
