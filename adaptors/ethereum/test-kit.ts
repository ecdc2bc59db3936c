import { randomBytes, randomUUID } from 'node:crypto';
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { ethereumFamily } from './index.js';
import { compileSolidity } from './local-node/compile-demo-token.js';
import type { LedgerAdaptor, UnsignedWithdrawal, VaultSource, VerifiedSignature, WithdrawalIntent } from '../../src/ledger/adaptor.js';
import { parsePublicKey, toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { otherS, verifySignature } from '../../src/ledger/signatures.js';
import { startTestChain, type EvmNodeKind, type TestChain } from '../../test/helpers/chain.js';
import { testRedis } from '../../test/helpers/redis.js';

/** Shared set-up of the Ethereum write-side tests: a fresh anvil, real Redis, test keys. */

export interface TestKey {
  priv: Uint8Array;
  publicKey: PublicKey;
  address: string;
  source: VaultSource;
}

export interface Harness {
  chain: TestChain;
  reservations: Reservations;
  adaptor(options?: Record<string, unknown>): LedgerAdaptor;
  rpc<T>(method: string, params: unknown[]): Promise<T>;
  close(): Promise<void>;
}

export async function startHarness(kind?: EvmNodeKind): Promise<Harness> {
  const chain = await startTestChain(kind);
  const { redis, prefix } = testRedis();
  const reservations = new Reservations(redis, prefix);
  const deps = { logger: pino({ level: 'silent' }), fetch, reservations };
  return {
    chain,
    reservations,
    adaptor: (options = {}) =>
      ethereumFamily.create('ethdev', ethereumFamily.optionsSchema.parse({ rpcUrl: chain.anvil.url, tokens: [chain.token], ...options }), deps),
    rpc: async <T>(method: string, params: unknown[]): Promise<T> => {
      const res = await fetch(chain.anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: T; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result as T;
    },
    close: async () => {
      await chain.stop();
      redis.disconnect();
    },
  };
}

/** An adaptor of the harness's node whose requests are counted (round trips, i.e. HTTP requests, and calls by method) on their way `through`. */
export function countedAdaptor(h: Harness, options: Record<string, unknown>, through: typeof fetch = fetch) {
  const counts = { roundTrips: 0, calls: {} as Record<string, number> };
  const counting = (async (input: string | URL | Request, init?: RequestInit) => {
    counts.roundTrips += 1;
    for (const c of [JSON.parse(String(init?.body))].flat() as { method: string }[]) counts.calls[c.method] = (counts.calls[c.method] ?? 0) + 1;
    return through(input, init);
  }) as typeof fetch;
  const adaptor = ethereumFamily.create('ethdev', ethereumFamily.optionsSchema.parse({ rpcUrl: h.chain.anvil.url, tokens: [h.chain.token], ...options }), {
    logger: pino({ level: 'silent' }),
    fetch: counting,
    reservations: h.reservations,
  });
  return { adaptor, counts, reset: () => ((counts.roundTrips = 0), (counts.calls = {})), close: () => undefined };
}

export function newKey(adaptor: LedgerAdaptor): TestKey {
  let priv = randomBytes(32);
  while (!ecc.isPrivate(priv)) priv = randomBytes(32);
  const publicKey = parsePublicKey(Buffer.from(ecc.pointFromScalar(priv, true) as Uint8Array).toString('hex'), 'secp256k1');
  const address = adaptor.addressFromPublicKey(publicKey);
  const vault = { address, publicKey, keyId: toCustodyKeyId(publicKey) };
  return { priv, publicKey, address, source: { vaultId: `vault-${address}`, addresses: [vault], changeAddress: address } };
}

export function intent(adaptor: LedgerAdaptor, partial: Partial<WithdrawalIntent> & { amount: bigint }): WithdrawalIntent {
  return {
    reference: randomUUID(),
    recipientAddress: `0x${randomBytes(20).toString('hex')}`,
    asset: adaptor.nativeAsset,
    fee: 'MEDIUM',
    ...partial,
  };
}

/**
 * Signs every payload digest like the custody service, then runs the callback's checks
 * (`verifySignature` against the stored digest and key) as the pipeline does. `highS` sends
 * the malleated twin the custody service may produce; `v` is sent as is.
 */
export function sign(unsigned: UnsignedWithdrawal, key: TestKey, opts: { highS?: boolean } = {}): VerifiedSignature[] {
  return unsigned.payloads.map((p, payloadIndex) => {
    const digest = Buffer.from(p.digest, 'hex');
    const { signature, recoveryId } = ecc.signRecoverable(digest, key.priv);
    let sig: Uint8Array = Uint8Array.from(signature);
    let v: number = recoveryId;
    if (opts.highS) {
      sig = otherS(sig);
      v ^= 1;
    }
    const checked = verifySignature(p.digest, Buffer.from(sig).toString('hex'), v, parsePublicKey(p.publicKey, 'secp256k1'));
    return { payloadIndex, signature: checked.signature, recoveryId: checked.recoveryId };
  });
}

/** A signature as is, without the pipeline's checks (what those checks must refuse). */
export function signUnchecked(digestHex: string, key: TestKey): VerifiedSignature[] {
  const { signature, recoveryId } = ecc.signRecoverable(Buffer.from(digestHex, 'hex'), key.priv);
  return [{ payloadIndex: 0, signature: Uint8Array.from(signature), recoveryId: recoveryId as 0 | 1 }];
}

export interface Receipt {
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  blockNumber: string;
}

export async function waitReceipt(h: Harness, txid: string): Promise<Receipt> {
  for (let i = 0; i < 200; i++) {
    const r = await h.rpc<Receipt | null>('eth_getTransactionReceipt', [txid]);
    if (r) return r;
    // anvil automines only when a transaction arrives: one that waited for an earlier nonce
    // and became executable after the last arrival sits until the next block. A live chain
    // keeps producing blocks; here we ask for one.
    if (i % 40 === 39) await h.rpc('evm_mine', []);
    await new Promise((res) => setTimeout(res, 25));
  }
  const known = await h.rpc<{ nonce: string; from: string } | null>('eth_getTransactionByHash', [txid]);
  const latest = known ? await h.rpc<string>('eth_getTransactionCount', [known.from, 'latest']) : 'n/a';
  throw new Error(`no receipt for ${txid} (node knows it: ${known ? `nonce ${BigInt(known.nonce)}` : 'no'}; account nonce ${latest})`);
}

export async function ethBalance(h: Harness, address: string): Promise<bigint> {
  return BigInt(await h.rpc<string>('eth_getBalance', [address, 'latest']));
}

/** anvil's second development account: it deploys the tests' own contracts (the harness's funder uses the first). */
export const DEPLOYER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/**
 * Compiles `source` and deploys its contract `name` from DEPLOYER_KEY with `args`: a test's
 * own token or recipient. `close` ends the provider the contract talks through.
 */
export async function deployContract(
  h: Harness,
  name: string,
  source: string,
  ...args: unknown[]
): Promise<{ contract: Contract; address: string; close(): void }> {
  const p = new JsonRpcProvider(h.chain.anvil.url, undefined, { cacheTimeout: -1, staticNetwork: true });
  const { abi, bytecode } = compileSolidity(name, source);
  const deployed = await new ContractFactory(abi as never, bytecode, new Wallet(DEPLOYER_KEY, p)).deploy(...args);
  await deployed.waitForDeployment();
  return { contract: deployed as unknown as Contract, address: await deployed.getAddress(), close: () => p.destroy() };
}
