import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { WatchedSet } from '../../src/deposits/watched-set.js';
import { singleAddress } from '../../src/vaults/vault-addresses.js';
import { markUsed } from '../../src/vaults/watch-addresses.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../helpers/redis.js';
import { bip44Vault, fakeAdaptor, singleVault } from './fake-chain.js';

/**
 * The scanner's map of watched addresses reads the vault registry again only when the registry
 * changed (its change counter), however the change came: from this process or another one.
 */
describe("the deposit scanner's watched addresses", () => {
  const { redis, prefix: base } = testRedis();
  afterAll(() => redis.disconnect());
  const adaptor = fakeAdaptor();
  const GAP = 3;
  let n = 0;
  let vaults: VaultStore;
  /** Registry pages read: one per rebuild of the map (few vaults). */
  let reads: number;
  let set: WatchedSet;

  beforeEach(() => {
    const prefix = `${base}${++n}:`;
    vaults = new VaultStore(redis, prefix);
    // A second store on the same registry plays another process (the API) writing to it.
    const counted = new VaultStore(redis, prefix);
    reads = 0;
    const list = counted.list.bind(counted);
    counted.list = (offset, limit) => (reads++, list(offset, limit));
    set = new WatchedSet(adaptor, counted, { gapLimit: GAP, refreshMs: 60_000, normalize: (a) => a });
  });

  it('keeps its map while nothing changed, and reads the registry again after each change', async () => {
    const a = singleVault('a');
    await vaults.create(a);
    await set.refresh(0);
    expect(reads).toBe(1);
    expect(set.get(singleAddress(adaptor, a).address)?.vaultId).toBe('a');
    // Nothing changed: no read, within refreshMs.
    await set.refresh(1_000);
    await set.refresh(59_000);
    expect(reads).toBe(1);
    // One vault removed and another registered: the same number of vaults, a changed registry.
    const b = singleVault('b');
    await vaults.remove('a');
    await vaults.create(b);
    expect(await set.refresh(2_000)).toEqual(['b']);
    expect(reads).toBe(2);
    expect(set.get(singleAddress(adaptor, a).address)).toBeUndefined();
    expect(set.get(singleAddress(adaptor, b).address)?.vaultId).toBe('b');
    await set.refresh(3_000);
    expect(reads).toBe(2);
    // Past refreshMs since the last read, it reads again whatever the counter says.
    await set.refresh(62_001);
    expect(reads).toBe(3);
  });

  it("moves a BIP44 vault's window when another process raises a used mark, and only then", async () => {
    const v = bip44Vault('h');
    await vaults.create(v.record);
    await set.refresh(0);
    expect(reads).toBe(1);
    expect(set.size).toBe(2 * GAP);
    expect(set.get(v.addressAt(adaptor, 0, GAP))).toBeUndefined();
    // Its own derivations (the window filled, nothing used) count as no change.
    await set.refresh(1_000);
    expect(reads).toBe(1);
    // Address 0/1 seen used elsewhere: the receive chain now reaches 1 + GAP.
    const account = v.record.bip44!;
    await markUsed(vaults.addresses, v.record, { account, chain: 0, index: 1 });
    await set.refresh(2_000);
    expect(reads).toBe(2);
    expect(set.get(v.addressAt(adaptor, 0, GAP))?.bip44).toMatchObject({ chain: 0, index: GAP });
    // The same mark again, or a lower one: no change.
    await markUsed(vaults.addresses, v.record, { account, chain: 0, index: 1 });
    await markUsed(vaults.addresses, v.record, { account, chain: 0, index: 0 });
    await set.refresh(3_000);
    expect(reads).toBe(2);
  });

  it('counts an account added to a BIP44 vault as a change', async () => {
    const v = bip44Vault('h2');
    await vaults.create(v.record);
    await set.refresh(0);
    const other = bip44Vault('x').record.bip44!;
    await vaults.addAccount(v.record, { ...other, account: '1' });
    await set.refresh(1_000);
    expect(reads).toBe(2);
    expect(set.size).toBe(4 * GAP);
  });
});
