import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { randomBytes } from 'node:crypto';
import { threadId as mainThreadId } from 'node:worker_threads';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { loadConfig } from '../../src/config/load-config.js';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import { inThreadDeriver } from '../../src/vaults/derivation/derive-addresses.js';
import { deriveThreadEntry } from '../../src/app/derive-entry.js';
import { DerivePool } from '../../src/vaults/derivation/derive-pool.js';
import { derivePoolFor } from '../../src/vaults/derivation/derive-pool-for.js';
import { DERIVE_THREAD_NICE } from '../../src/vaults/derivation/derive-protocol.js';
import { TimeSlicer } from '../../src/vaults/derivation/time-sliced.js';
import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { testRedis } from '../helpers/redis.js';

// Back ends nothing listens on: derivation never needs one.
const CLOSED = 'http://127.0.0.1:9';
/** Configured ledgers whose options change their addresses: a thread must build them as configured, not as the built-in ids. */
const LEDGERS = {
  btcregtest: { backend: 'esplora', url: CLOSED, defaultAddressFormat: 'p2pkh' },
  polygon: { family: 'ethereum', chainId: 137, rpcUrl: CLOSED },
  stellardev: { horizonUrl: CLOSED },
  solanadev: { rpcUrl: CLOSED },
};
const SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200';
/** The key on which fixtures/dying-derive-worker.ts exits: the generator point, compressed. */
const POISON = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';

function secpKeys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const point = Buffer.from(ecc.pointFromScalar(randomBytes(32), false) as Uint8Array);
    const forms = [Buffer.from(ecc.pointCompress(point, true)).toString('hex'), point.toString('hex'), `${SPKI_PREFIX}${point.toString('hex')}`.toUpperCase()];
    return forms[i % forms.length] as string;
  });
}
const edKeys = (n: number): string[] => Array.from({ length: n }, () => randomBytes(32).toString('hex'));

/** A logger whose lines the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  return { logger: pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s)) }), lines };
}

const { redis, prefix } = testRedis();
const config = loadConfig(
  {
    LEDGERS: JSON.stringify(LEDGERS),
    SANDBOX: 'false',
    API_KEYS: '[{"name":"r","key":"test-read-key-0123456789abcdef01234","scopes":["read"]}]',
    CUSTODY_URL: `${CLOSED}/mng`,
  },
  families,
  'test',
);
const registry = LedgerRegistry.fromConfig(config, { logger: pino({ level: 'silent' }), fetch, reservations: new Reservations(redis, prefix) });
const inThread = inThreadDeriver(new TimeSlicer());

/** Every configured and built-in ledger, with keys of its scheme and each of its formats. */
const cases = registry.knownIds().flatMap((id) => {
  const codec = registry.addressCodec(id);
  return [undefined, ...codec.addressFormats()].map((format) => ({ id, codec, format }));
});

describe('address-derivation threads', () => {
  const threadsSeen = new Set<number>();
  let pool: DerivePool;
  beforeAll(async () => {
    pool = derivePoolFor({ ...config, deriveThreads: 2 }, pino({ level: 'silent' }), deriveThreadEntry(), {
      onChunk: (c) => threadsSeen.add(c.threadId),
      chunkKeys: 100,
    });
    expect(await pool.start()).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await pool.close();
    redis.disconnect();
  });

  it.each(cases.map((c) => [`${c.id} ${c.format ?? '(default format)'}`, c] as const))(
    '%s: the same addresses as on the main thread',
    async (_name, { codec, format }) => {
      const keys = codec.scheme === 'ed25519' ? edKeys(250) : secpKeys(250);
      threadsSeen.clear();
      const fromThreads = await pool.derive(codec, keys, format);
      expect(fromThreads).toEqual(await inThread.derive(codec, keys, format));
      // The work ran in the pool's threads, not on this (the main) thread.
      expect(threadsSeen.size).toBeGreaterThan(0);
      expect(threadsSeen.has(mainThreadId)).toBe(false);
      expect([...threadsSeen].every((t) => pool.threadIds().includes(t))).toBe(true);
    },
  );

  it('a configured ledger keeps its own options in the threads (p2pkh by default on this btcregtest)', async () => {
    const codec = registry.addressCodec('btcregtest');
    const [address] = await pool.derive(codec, secpKeys(1), undefined);
    expect(address).toMatch(/^[mn]/);
  });

  it('a bad key: the error of the lowest index, in the same shape as on the main thread', async () => {
    const codec = registry.addressCodec('polygon');
    const keys = secpKeys(1_000);
    keys[870] = 'zz';
    keys[420] = `04${'11'.repeat(64)}`; // not on the curve
    keys[130] = '02ab';
    const [fromThreads, fromMain] = await Promise.all([
      pool.derive(codec, keys, undefined).catch((e: unknown) => e),
      inThread.derive(codec, keys, undefined).catch((e: unknown) => e),
    ]);
    expect(fromThreads).toBeInstanceOf(InvalidArgumentError);
    expect((fromThreads as InvalidArgumentError).toBody()).toEqual((fromMain as InvalidArgumentError).toBody());
    expect((fromThreads as InvalidArgumentError).fields).toEqual({ index: 130 });
  });

  it('takes requests in turns by chunk: a small request sent after a large one is answered first', async () => {
    const codec = registry.addressCodec('btc');
    const order: string[] = [];
    const large = pool.derive(codec, secpKeys(4_000), undefined).then(() => order.push('large'));
    const small = pool.derive(codec, secpKeys(10), undefined).then(() => order.push('small'));
    await Promise.all([large, small]);
    expect(order).toEqual(['small', 'large']);
  });

  it('derives a ledger the threads do not know as the main thread does on the main thread', async () => {
    const custom: AddressCodec = { ...registry.addressCodec('btc'), ledgerId: 'not-configured-in-the-threads' };
    threadsSeen.clear();
    const keys = secpKeys(20);
    expect(await pool.derive(custom, keys, undefined)).toEqual(await inThread.derive(custom, keys, undefined));
    expect([...threadsSeen]).toEqual([mainThreadId]);
  });
});

describe('address-derivation threads: start, fallback, shutdown', () => {
  const codec = builtIn('btc');

  it('stops its threads on close, and answers 503 afterwards', async () => {
    const pool = new DerivePool({ threads: 1, ledgers: [], logger: pino({ level: 'silent' }), entry: deriveThreadEntry() });
    expect(await pool.start()).toBe(true);
    expect(pool.threadIds()).toHaveLength(1);
    expect(pool.threadIds()[0]).not.toBe(mainThreadId);
    await pool.close();
    expect(pool.threadIds()).toEqual([]);
    await expect(pool.derive(codec, secpKeys(1), undefined)).rejects.toMatchObject({ status: 503, retryable: true });
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    "runs its threads below the event loop's priority (nice 10), the process itself unchanged",
    async () => {
      const nices = () =>
        readdirSync('/proc/self/task').map((tid) => ({
          tid: Number(tid),
          nice: Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
        }));
      const before = nices().filter((t) => t.nice === DERIVE_THREAD_NICE).length;
      const pool = new DerivePool({ threads: 2, ledgers: [], logger: pino({ level: 'silent' }), entry: deriveThreadEntry() });
      expect(await pool.start()).toBe(true);
      expect(nices().filter((t) => t.nice === DERIVE_THREAD_NICE).length - before).toBe(2);
      expect(nices().find((t) => t.tid === process.pid)?.nice).toBe(0);
      expect(getPriority()).toBe(0);
      await pool.close();
    },
    120_000,
  );

  it('stops idle threads, and starts new ones for the next request', async () => {
    const seen: number[] = [];
    const pool = new DerivePool({
      threads: 1,
      ledgers: [],
      logger: pino({ level: 'silent' }),
      entry: deriveThreadEntry(),
      idleStopMs: 50,
      onChunk: (c) => seen.push(c.threadId),
    });
    const keys = secpKeys(5);
    const expected = await inThread.derive(codec, keys, undefined);
    expect(await pool.derive(codec, keys, undefined)).toEqual(expected);
    // The thread that derived, as it reported itself: it may be stopped already when asked after.
    const first = seen[0];
    expect(first).toBeTypeOf('number');
    while (pool.threadIds().length > 0) await new Promise((r) => setTimeout(r, 25));
    expect(await pool.derive(codec, keys, undefined)).toEqual(expected);
    const second = seen[1];
    expect(second).toBeTypeOf('number');
    expect(second).not.toBe(first);
    expect(seen).toEqual([first, second]);
    expect(seen).not.toContain(mainThreadId);
    await pool.close();
  }, 120_000);

  it('replaces a thread that dies, sends its chunk again, and derives a chunk lost twice on the main thread', async () => {
    const { logger, lines } = capturingLogger();
    const chunks: { threadId: number; keys: number }[] = [];
    const entry = new URL('./fixtures/dying-derive-worker.ts', import.meta.url);
    const pool = new DerivePool({ threads: 1, ledgers: [], logger, entry, chunkKeys: 10, onChunk: (c) => chunks.push(c) });
    const keys = secpKeys(30);
    keys[15] = POISON;
    expect(await pool.derive(codec, keys, undefined)).toEqual(await inThread.derive(codec, keys, undefined));
    // Keys 10-19 killed a thread twice: the main thread derived them; the other chunks, threads.
    expect(chunks.filter((c) => c.threadId === mainThreadId)).toEqual([{ threadId: mainThreadId, keys: 10 }]);
    expect(chunks.filter((c) => c.threadId !== mainThreadId).map((c) => c.keys)).toEqual([10, 10]);
    expect(lines.filter((l) => l.msg === 'address-derivation thread exited; starting another')).toHaveLength(2);
    // A replacement serves the next request.
    expect(await pool.derive(codec, keys.slice(0, 10), undefined)).toEqual(await inThread.derive(codec, keys.slice(0, 10), undefined));
    expect(pool.threadIds()).toHaveLength(1);
    await pool.close();
  }, 120_000);

  it('falls back to the main thread, saying so in the log, when the threads cannot start', async () => {
    const { logger, lines } = capturingLogger();
    const seen = new Set<number>();
    const pool = new DerivePool({
      threads: 1,
      ledgers: [],
      logger,
      entry: new URL('./no-such-derive-worker.js', import.meta.url),
      onChunk: (c) => seen.add(c.threadId),
    });
    const keys = secpKeys(300);
    const early = pool.derive(codec, keys, undefined);
    expect(await pool.start()).toBe(false);
    expect(await early).toEqual(await inThread.derive(codec, keys, undefined));
    expect(await pool.derive(codec, keys, undefined)).toEqual(await inThread.derive(codec, keys, undefined));
    expect([...seen]).toEqual([mainThreadId]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'address-derivation threads could not start: deriving on the main thread in time slices',
    ]);
    await pool.close();
  }, 120_000);

  it('DERIVE_THREADS=0 derives on the main thread without starting a thread', async () => {
    const seen = new Set<number>();
    const pool = new DerivePool({
      threads: 0,
      ledgers: [],
      logger: pino({ level: 'silent' }),
      entry: deriveThreadEntry(),
      onChunk: (c) => seen.add(c.threadId),
    });
    const keys = secpKeys(10);
    expect(await pool.derive(codec, keys, undefined)).toEqual(await inThread.derive(codec, keys, undefined));
    expect(await pool.start()).toBe(false);
    expect(pool.threadIds()).toEqual([]);
    expect([...seen]).toEqual([mainThreadId]);
  });
});

function builtIn(id: string): AddressCodec {
  return new LedgerRegistry([], families).addressCodec(id);
}
