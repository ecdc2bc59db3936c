/** A real OperationStore on the run's Redis, with a fake Bitcoin-like ledger, queues that record what is added, and a silent logger: for tests of the callback, acceptance and reconciliation paths that need no node. */
import { randomBytes, randomUUID } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import { newOperation, type Operation } from '../../src/withdrawals/model/operation.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { toCustodyKeyId } from '../../src/ledger/public-key.js';
import type { SigningPayload } from '../../src/ledger/adaptor.js';
import { testRedis } from './redis.js';

export interface Key {
  priv: Uint8Array;
  pubHex: string; // compressed, as stored
  keyId: string; // DER SPKI uppercase, as custody echoes
}

export function key(): Key {
  const priv = randomBytes(32);
  const pub = ecc.pointFromScalar(priv, true) as Uint8Array;
  return { priv, pubHex: Buffer.from(pub).toString('hex'), keyId: toCustodyKeyId({ scheme: 'secp256k1', bytes: pub }) };
}

export function sign(k: Key, digestHex: string): { signature: string; v: number } {
  const r = ecc.signRecoverable(Buffer.from(digestHex, 'hex'), k.priv);
  return { signature: Buffer.from(r.signature).toString('hex').toUpperCase(), v: r.recoveryId };
}

export function payload(k: Key, i: number): SigningPayload {
  return { digest: randomBytes(32).toString('hex'), keyId: k.keyId, publicKey: k.pubHex, hashAlgorithm: 'DOUBLE_SHA256', txIndex: 0, inputIndex: i };
}

export const LEDGER = 'btcregtest';

export function fakeAdaptor(released: string[] = []) {
  return {
    ledgerId: LEDGER,
    family: 'bitcoin',
    scheme: 'secp256k1' as const,
    confirmations: 1,
    release: async (_u: unknown, id: string) => {
      released.push(id);
    },
  };
}

export function operation(payloads: SigningPayload[], over: Partial<Operation> = {}, createdAt?: string): Operation {
  const op = newOperation(
    {
      id: randomUUID(),
      vaultId: 'v1',
      ledgerId: LEDGER,
      request: { recipientAddress: 'bcrt1q', asset: 'BTC', amount: '1', description: 'kit', fee: 'MEDIUM' },
      recipientAddress: 'bcrt1q',
      unsigned: { txs: [{ serialized: '02' }], payloads, fee: '1000', state: {} },
    },
    createdAt,
  );
  return { ...op, ...over };
}

export function harness() {
  const { redis, prefix } = testRedis();
  const store = new OperationStore(redis, prefix);
  const added: { queue: string; jobId: string }[] = [];
  const queue = (name: string) => ({
    add: async (_n: string, _d: unknown, o: { jobId: string }) => {
      added.push({ queue: name, jobId: o.jobId });
      return { id: o.jobId };
    },
    getJob: async () => undefined,
  });
  const queues = { broadcast: queue('broadcast'), replace: queue('replace'), confirm: queue('confirm') };
  const released: string[] = [];
  const registry = new LedgerRegistry([fakeAdaptor(released) as never]);
  const logger = { info() {}, warn() {}, error() {}, debug() {} };
  const cleanup = async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  };
  return { redis, prefix, store, queues, added, registry, released, logger, cleanup };
}
