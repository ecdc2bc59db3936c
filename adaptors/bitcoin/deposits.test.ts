import { randomBytes, randomUUID } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import pino from 'pino';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import type { LedgerAdaptor, VaultAddress } from '../../src/ledger/adaptor.js';
import { toCustodyKeyId, type PublicKey } from '../../src/ledger/public-key.js';
import type { VaultRecord } from '../../src/vaults/vault-schema.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { startBitcoinRegtest, type BitcoinRegtest } from './local-node/index.js';
import { regtestAdaptor, signAll, type TestKey } from './test-kit.js';

const bip32 = BIP32Factory(ecc);

/**
 * Deposits on a real bcoin regtest node, through each back end (the Esplora facade's
 * `/block/:hash/txs`, the Core RPC facade's `getblock … 3`): payments to many addresses of one
 * BIP44 vault (receive and change chains), the change of the vault's own withdrawal left out,
 * and `invalidateblock` taking a block away before and after the depth.
 */
describe.each(['esplora', 'core'] as const)('Bitcoin deposits on regtest through %s', (backend) => {
  let regtest: BitcoinRegtest;
  let adaptor: LedgerAdaptor;
  let close: () => void;
  let store: DepositStore;
  let vaults: VaultStore;
  let redis: ReturnType<typeof regtestAdaptor>['redis'];
  let scanner: LedgerScanner;
  const root = bip32.fromSeed(randomBytes(32));
  const account = root.derivePath("m/44'/1'/0'");
  const record: VaultRecord = {
    vaultId: 'btc-vault',
    ledgerId: 'btcregtest',
    kind: 'bip44',
    addressFormat: 'p2wpkh',
    bip44: {
      publicKey: Buffer.from(account.publicKey).toString('hex'),
      cpar: Buffer.from(account.chainCode).toString('hex'),
      bipLevel: 3,
      parentFingerprint: 0,
      childNumber: 0,
      coin: '1',
      account: '0',
    },
    createdAt: '',
  };
  const keyAt = (chain: number, index: number): TestKey & { address: string } => {
    const node = account.derive(chain).derive(index);
    const publicKey: PublicKey = { scheme: 'secp256k1', bytes: Uint8Array.from(node.publicKey) };
    return { priv: Uint8Array.from(node.privateKey!), publicKey, keyId: toCustodyKeyId(publicKey), address: adaptor.addressFromPublicKey(publicKey, 'p2wpkh') };
  };
  const scan = () => scanner.pass({ maxBlocks: 1000, deadline: Date.now() + 60_000 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    let prefix: string;
    ({ adaptor, close, redis, prefix } = regtestAdaptor(backend === 'core' ? regtest.coreRpcUrl : regtest.url, { backend, confirmations: 2 }));
    store = new DepositStore(redis, prefix);
    vaults = new VaultStore(redis, prefix);
    await vaults.create(record);
    scanner = new LedgerScanner(
      adaptor,
      adaptor.depositSource!,
      { store, vaults, logger: pino({ level: 'silent' }) },
      { window: 50, gapLimit: 10, refreshMs: 60_000, startAfter: regtest.node.height },
    );
  }, 300_000);
  afterAll(async () => {
    close?.();
    await regtest?.stop();
  });

  it('finds payments to many addresses of one BIP44 vault, receive and change chain, and confirms them at the depth', async () => {
    const paid = [
      [0, 0, 50_000],
      [0, 7, 20_000],
      [1, 3, 30_000],
    ] as const;
    const txids: string[] = [];
    for (const [chain, index, sats] of paid) txids.push(await regtest.faucet(keyAt(chain, index).address, sats));
    await scan();
    const seen = (await events()).filter((e) => e.type === 'deposit.detected');
    expect(seen.map((e) => [e.deposit.txid, e.deposit.path, e.deposit.baseUnits, e.deposit.asset])).toEqual(
      paid.map(([chain, index, sats], i) => [txids[i], `${chain}/${index}`, String(sats), 'BTC']),
    );
    expect(seen.every((e) => e.deposit.index.startsWith('out:') && e.deposit.from.length > 0)).toBe(true);
    // The faucet mined a block for each: the first two are 2 deep now.
    expect((await events()).filter((e) => e.type === 'deposit.confirmed').map((e) => e.deposit.txid)).toEqual(txids.slice(0, 2));
  });

  it("leaves out the change of the vault's own withdrawal, and finds what an outsider pays in the same block", async () => {
    const from = keyAt(0, 0);
    const change = keyAt(1, 0);
    const source = {
      vaultId: record.vaultId,
      addresses: [{ address: from.address, publicKey: from.publicKey, keyId: from.keyId, path: '0/0' } as VaultAddress],
      changeAddress: change.address,
    };
    const outsider = adaptor.addressFromPublicKey({ scheme: 'secp256k1', bytes: Uint8Array.from(bip32.fromSeed(randomBytes(32)).publicKey) }, 'p2wpkh');
    const unsigned = await adaptor.craft(source, {
      reference: randomUUID(),
      recipientAddress: outsider,
      asset: adaptor.nativeAsset,
      amount: 10_000n,
      fee: 'LOW',
    });
    const [signed] = adaptor.combine(unsigned, signAll(unsigned, [from]));
    await adaptor.broadcast(signed!);
    const incoming = await regtest.faucet(keyAt(0, 2).address, 5_000);
    await scan();
    const detected = (await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit.txid);
    expect(detected).toContain(incoming);
    expect(detected).not.toContain(signed!.txid);
    // The change output is there, to the vault's change address: not a deposit.
    const tx = (await (await fetch(`${regtest.url}/tx/${signed!.txid}`)).json()) as {
      vout: { scriptpubkey_address?: string }[];
      status: { confirmed: boolean };
    };
    expect(tx.status.confirmed).toBe(true);
    expect(tx.vout.map((o) => o.scriptpubkey_address)).toContain(change.address);
  });

  it('invalidateblock before the depth reverts the deposit once the new chain is as high; after the depth it stays CONFIRMED, flagged', async () => {
    const shallow = await regtest.faucet(keyAt(0, 3).address, 7_000);
    await scan();
    const hash = (await store.get(`btcregtest:${shallow}:out:0`))!.blockHash;
    await regtest.invalidate(hash);
    await regtest.mine(1);
    await scan();
    const mine = (await events()).filter((e) => e.deposit.txid === shallow);
    expect(mine.map((e) => [e.type, e.sequence])).toEqual([
      ['deposit.detected', 1],
      ['deposit.reverted', 2],
    ]);

    const deep = await regtest.faucet(keyAt(0, 4).address, 8_000);
    await regtest.mine(1);
    await scan();
    const id = `btcregtest:${deep}:out:0`;
    expect((await store.get(id))?.state).toBe('CONFIRMED');
    await regtest.invalidate((await store.get(id))!.blockHash);
    await regtest.mine(3);
    await scan();
    expect(await store.get(id)).toMatchObject({ state: 'CONFIRMED', reorganisedAfterConfirmation: true });
    expect((await events()).filter((e) => e.depositId === id).map((e) => e.type)).toEqual(['deposit.detected', 'deposit.confirmed']);
  });
});
