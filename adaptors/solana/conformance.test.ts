import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Reservations } from '../../src/ledger/reservations.js';
import { describeConformance } from '../../test/conformance/conformance.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import type { AssetInfo } from '../../src/ledger/adaptor.js';
import { solanaFamily, nonceAccountAddress } from './index.js';
import { startLocalSolanaNode } from './local-node/index.js';
import { decodeSolanaTx, setUpNonce } from './test-kit.js';
import { associatedTokenAccount } from './logic/accounts.js';
import { LAMPORTS_PER_SIGNATURE } from './logic/fees.js';

describeConformance(
  'solana (solanadev on LiteSVM behind the local JSON-RPC facade)',
  async () => {
    const node = await startLocalSolanaNode();
    const { redis, prefix } = testRedis();
    const adaptor = solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch,
      reservations: new Reservations(redis, prefix),
    });
    const signer = ed25519Signer(randomBytes(32));
    const vault = adaptor.addressFromPublicKey(signer.publicKey);
    const nonceRent = node.svm.minimumBalanceForRentExemption(80n);
    let vaultFunded = false;
    /** Recipient token accounts → their owners, for decode. */
    const owners = new Map<string, string>();
    return {
      adaptor,
      signer,
      foreignAddresses: [
        '0x8240Fd14931292B85C850514c8a4eBd35E56EDA4',
        'bc1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlw6qz2yj',
        'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H',
      ],
      // The vault's first funding after the read-side checks also creates its nonce account,
      // which every withdrawal needs; that setup leaves the vault exactly as empty as before.
      fund: async (address, asset: AssetInfo, amount) => {
        if (address === vault && vaultFunded && !(await node.svm.getAccount(await nonceAccountAddress(vault))).exists) {
          await setUpNonce(adaptor, signer, (a, l) => node.fund(a, 'SOL', l), nonceRent);
        }
        if (address === vault) vaultFunded = true;
        await node.fund(address, asset.symbol, amount);
      },
      recipient: async (asset) => {
        const address = ed25519Signer().publicKey;
        const to = adaptor.addressFromPublicKey(address);
        if (asset && !asset.native) owners.set(await associatedTokenAccount(to, asset.contract as string), to);
        return to;
      },
      decode: (signed) => {
        const d = decodeSolanaTx(signed);
        if (d.programs[0] !== '11111111111111111111111111111111') throw new Error('advanceNonce is not the first instruction');
        const rent = d.createsTokenAccount ? node.svm.minimumBalanceForRentExemption(165n) : 0n;
        const fee = LAMPORTS_PER_SIGNATURE + (d.microLamports * BigInt(d.computeUnitLimit ?? 200_000) + 999_999n) / 1_000_000n + rent;
        if (d.solTransfer) return { from: d.solTransfer.from, to: d.solTransfer.to, asset: 'SOL', amount: d.solTransfer.lamports, fee };
        if (d.tokenTransfer) {
          const symbol = d.tokenTransfer.mint === node.usdc.mint ? node.usdc.symbol : d.tokenTransfer.mint;
          return {
            from: d.tokenTransfer.authority,
            to: owners.get(d.tokenTransfer.destination) ?? d.tokenTransfer.destination,
            asset: symbol,
            amount: d.tokenTransfer.amount,
            fee,
          };
        }
        throw new Error('no transfer in the transaction');
      },
      // LiteSVM executes a transaction when it is sent.
      // Roots what landed: withdrawals are confirmed at `finalized`.
      settle: async () => node.facade.root(),
      stop: async () => {
        redis.disconnect();
        await node.stop();
      },
    };
  },
  { tokens: true },
);
