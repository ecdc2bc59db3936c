import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { stellarFamily } from './index.js';
import type { LedgerAdaptor, SignedTx, UnsignedWithdrawal, VaultSource, VerifiedSignature } from '../../src/ledger/adaptor.js';
import { startStellarLedger, type LocalStellarLedger } from './local-node/index.js';
import { toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { verifySignature } from '../../src/ledger/signatures.js';

/** An ed25519 test key held by node:crypto, as the custody service would hold it. */
export interface TestKey {
  publicKey: PublicKey;
  address: string;
  /** The same key as an SDK keypair, for setup transactions (trustlines) only. */
  keypair: Keypair;
  signHex(digestHex: string): string;
}

export function testKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const key: PublicKey = { scheme: 'ed25519', bytes: Uint8Array.from(raw) };
  return {
    publicKey: key,
    address: StrKey.encodeEd25519PublicKey(Buffer.from(raw)),
    keypair: Keypair.fromRawEd25519Seed(Buffer.from(seed)),
    signHex: (digestHex) => signWith(privateKey, digestHex),
  };
}

function signWith(privateKey: KeyObject, digestHex: string): string {
  return sign(null, Buffer.from(digestHex, 'hex'), privateKey).toString('hex');
}

export function vaultOf(key: TestKey, vaultId = 'vault-1'): VaultSource {
  return {
    vaultId,
    addresses: [{ address: key.address, publicKey: key.publicKey, keyId: toCustodyKeyId(key.publicKey) }],
    changeAddress: key.address,
  };
}

/** Signs each payload digest and checks it as the pipeline does, giving VerifiedSignatures. */
export function signPayloads(unsigned: UnsignedWithdrawal, key: TestKey): VerifiedSignature[] {
  return unsigned.payloads.map((p, payloadIndex) => {
    const v = verifySignature(p.digest, key.signHex(p.digest), undefined, key.publicKey);
    return { payloadIndex, signature: v.signature, recoveryId: v.recoveryId };
  });
}

export function stellarAdaptor(
  redis: Redis,
  prefix: string,
  options: Record<string, unknown>,
  ledgerId = 'stellardev',
  fetchFn: typeof fetch = fetch,
): LedgerAdaptor {
  return stellarFamily.create(ledgerId, stellarFamily.optionsSchema.parse(options), {
    logger: pino({ level: 'silent' }),
    fetch: fetchFn,
    reservations: new Reservations(redis, prefix),
  });
}

export interface SignedOnSimulator {
  sim: LocalStellarLedger;
  vault: TestKey;
  dest: TestKey;
  unsigned: UnsignedWithdrawal;
  signed: SignedTx;
  /** The ledger's adaptor over the simulator, through `f` (a fetch that plays lagging instances). */
  adaptor: (f?: typeof fetch) => LedgerAdaptor;
}

/**
 * A fresh simulator (its clock may be moved past time bounds), a funded vault and recipient, and
 * a signed, unsent withdrawal of 5 XLM bounded `timeoutSeconds` ahead. The caller stops `sim`.
 */
export async function signedOnSimulator(redis: Redis, prefix: string, timeoutSeconds: number, reference: string): Promise<SignedOnSimulator> {
  const sim = await startStellarLedger({ closeIntervalMs: 0 });
  const vault = testKey();
  const dest = testKey();
  await sim.fund(vault.address, '100');
  await sim.fund(dest.address, '10');
  const adaptor = (f: typeof fetch = fetch) =>
    stellarAdaptor(redis, prefix, { horizonUrl: sim.url, networkPassphrase: sim.passphrase, timeoutSeconds }, 'stellardev', f);
  const unsigned = await adaptor().craft(vaultOf(vault), {
    reference,
    recipientAddress: dest.address,
    asset: adaptor().assets()[0]!,
    amount: 50_000_000n,
    fee: 'LOW',
  });
  const [signed] = adaptor().combine(unsigned, signPayloads(unsigned, vault));
  return { sim, vault, dest, unsigned, signed: signed!, adaptor };
}
