import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { bitcoinFamily } from './index.js';
import type { AdaptorDeps, LedgerAdaptor, UnsignedWithdrawal, VaultSource, VerifiedSignature } from '../../src/ledger/adaptor.js';
import { toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { testRedis } from '../../test/helpers/redis.js';

export interface TestKey {
  priv: Uint8Array;
  publicKey: PublicKey;
  keyId: string;
}

export function newKey(): TestKey {
  let priv: Uint8Array;
  do priv = Uint8Array.from(randomBytes(32));
  while (!ecc.isPrivate(priv));
  const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(ecc.pointFromScalar(priv, true) as Uint8Array) };
  return { priv, publicKey, keyId: toCustodyKeyId(publicKey) };
}

/** A one-address vault of `key` in `format`, its change going back to the same address. */
export function vaultOf(adaptor: LedgerAdaptor, key: TestKey, format: string): VaultSource {
  const address = adaptor.addressFromPublicKey(key.publicKey, format);
  return { vaultId: `vault-${format}`, addresses: [{ address, publicKey: key.publicKey, keyId: key.keyId }], changeAddress: address };
}

/** Signs every payload as the custody service would, and checks it the way the pipeline does. */
export function signAll(unsigned: UnsignedWithdrawal, keys: TestKey[]): VerifiedSignature[] {
  return unsigned.payloads.map((p, payloadIndex) => {
    const key = keys.find((k) => k.keyId === p.keyId);
    if (!key) throw new Error(`no test key for ${p.keyId}`);
    const sig = ecc.sign(Buffer.from(p.digest, 'hex'), key.priv);
    const { signature, recoveryId } = verifySignature(p.digest, Buffer.from(sig).toString('hex'), 0, key.publicKey);
    return { payloadIndex, signature, recoveryId };
  });
}

export function regtestAdaptor(
  url: string,
  extraOptions: Record<string, unknown> = {},
  extraDeps: Partial<AdaptorDeps> = {},
): { adaptor: LedgerAdaptor; reservations: Reservations; redis: Redis; prefix: string; close(): void } {
  const { redis, prefix } = testRedis();
  const reservations = new Reservations(redis, prefix);
  const options = bitcoinFamily.optionsSchema.parse({ backend: 'esplora', url, ...extraOptions });
  const adaptor = bitcoinFamily.create('btcregtest', options, { logger: pino({ level: 'silent' }), fetch, reservations, ...extraDeps });
  return { adaptor, reservations, redis, prefix, close: () => redis.disconnect() };
}

export async function utxoSum(url: string, address: string): Promise<bigint> {
  const list = (await (await fetch(`${url}/address/${address}/utxo`)).json()) as { value: number }[];
  return list.reduce((s, u) => s + BigInt(u.value), 0n);
}
