import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import type { AssetInfo, LedgerAdaptor, PublicKey, SignedTx, VaultSource } from '../../src/ledger/adaptor.js';
import { publicKeyHex } from '../../src/ledger/public-key.js';
import { verifySignature } from '../../src/ledger/signatures.js';

/** A signer standing in for the custody service: signs a digest, answers like a callback. */
export interface TestSigner {
  publicKey: PublicKey;
  /** The key as the custody service would report it (its key id). */
  keyId: string;
  sign(digestHex: string): { signature: string; v: number };
}

/** What a decoded signed transaction says, for the write-side checks. */
export interface DecodedTransfer {
  from: string;
  to: string;
  asset: string;
  amount: bigint;
  fee: bigint;
}

export interface ConformanceSetup {
  adaptor: LedgerAdaptor;
  signer: TestSigner;
  /** Addresses of ledgers of other families, which must not be valid here. */
  foreignAddresses: string[];
  /** Funds an address (base units) on the local node and waits until the balance shows. */
  fund(address: string, asset: AssetInfo, amount: bigint): Promise<void>;
  /**
   * A fresh valid recipient address holding nothing. Given `asset`, one that can receive it
   * and still holds none of it (on Stellar: an existing account with a trustline for a credit
   * asset, an account not yet created for XLM).
   */
  recipient(asset?: AssetInfo): Promise<string>;
  /** Decodes a signed transaction produced by combine. */
  decode(tx: SignedTx): DecodedTransfer | Promise<DecodedTransfer>;
  /** Makes the node include pending transactions (mine a block), if it needs telling. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The shared suite every adaptor passes: read side (identity, addresses, balances, health)
 * and write side (craft, sign with a test key, combine, decode and check sender, recipient,
 * amount and fee, broadcast, confirmation).
 */
export function describeConformance(
  name: string,
  start: () => Promise<ConformanceSetup>,
  /** `sendsTogether`: the adaptor has `broadcastMany` (several transactions per round trip, in order). */
  opts: { tokens: boolean; sendsTogether?: boolean },
): void {
  describe(`adaptor conformance: ${name}`, () => {
    let s: ConformanceSetup;
    let a: LedgerAdaptor;
    beforeAll(async () => {
      s = await start();
      a = s.adaptor;
    });
    afterAll(() => s?.stop());

    it('describes itself: native asset first, fee levels, address formats, scheme', () => {
      expect(a.ledgerId).toMatch(/^[a-z0-9_-]+$/);
      expect(a.family).toMatch(/^[a-z]+$/);
      expect(['secp256k1', 'ed25519']).toContain(a.scheme);
      expect(a.assets()[0]).toEqual(a.nativeAsset);
      expect(a.nativeAsset.native).toBe(true);
      expect(a.assets().filter((x) => x.native)).toHaveLength(1);
      expect(a.feeLevels()).toEqual(expect.arrayContaining(['HIGH', 'MEDIUM', 'LOW']));
      expect(a.addressFormats().length).toBeGreaterThan(0);
      expect(a.confirmations).toBeGreaterThanOrEqual(1);
    });

    it('derives valid, deterministic addresses in every format; rejects an unknown format', () => {
      for (const format of a.addressFormats()) {
        const address = a.addressFromPublicKey(s.signer.publicKey, format);
        expect(a.isValidAddress(address), `${format} ${address}`).toBe(true);
        expect(a.addressFromPublicKey(s.signer.publicKey, format)).toBe(address);
      }
      expect(a.addressFromPublicKey(s.signer.publicKey)).toBe(a.addressFromPublicKey(s.signer.publicKey, a.addressFormats()[0]));
      expect(() => a.addressFromPublicKey(s.signer.publicKey, 'no-such-format')).toThrow(InvalidArgumentError);
    });

    it('rejects invalid and foreign addresses', () => {
      for (const bad of ['', 'hello', '0', ' ', ...s.foreignAddresses]) expect(a.isValidAddress(bad), bad).toBe(false);
    });

    it('reports health with a height', async () => {
      const h = await a.health();
      expect(h.healthy, h.errorMessage).toBe(true);
      expect(h.height).toBeGreaterThanOrEqual(0);
    });

    it('reads balances: zero for a fresh address, exact after funding', async () => {
      const fresh = await s.recipient();
      const zero = await a.getBalances([fresh], a.assets());
      expect(zero.map((b) => b.amount)).toEqual(a.assets().map(() => 0n));
      const address = a.addressFromPublicKey(s.signer.publicKey);
      const amount = 10n ** BigInt(a.nativeAsset.decimals);
      await s.fund(address, a.nativeAsset, amount);
      const [b] = await a.getBalances([address], [a.nativeAsset]);
      expect(b).toEqual({ address, asset: a.nativeAsset.symbol, amount });
    });

    for (const pick of opts.tokens ? (['native', 'token'] as const) : (['native'] as const)) {
      it(`withdraws ${pick === 'native' ? 'the native asset' : 'a token'}: craft, sign, combine, decode, broadcast, confirm`, async () => {
        const asset = pick === 'native' ? a.nativeAsset : a.assets().find((x) => !x.native);
        if (!asset) throw new Error('the adaptor was declared to have tokens but lists none');
        const address = a.addressFromPublicKey(s.signer.publicKey);
        const funding = 5n * 10n ** BigInt(asset.decimals);
        await s.fund(address, asset, funding);
        if (!asset.native) await s.fund(address, a.nativeAsset, 10n ** BigInt(a.nativeAsset.decimals));
        const source: VaultSource = {
          vaultId: 'conformance',
          addresses: [{ address, publicKey: s.signer.publicKey, keyId: s.signer.keyId }],
          changeAddress: address,
        };
        const to = await s.recipient(asset);
        const amount = 12n * 10n ** BigInt(Math.max(asset.decimals - 1, 0));
        const unsigned = await a.craft(source, {
          reference: `conf-${pick}-${Date.now()}`,
          recipientAddress: to,
          asset,
          amount,
          fee: a.feeLevels()[0] as string,
        });
        expect(unsigned.txs.length).toBeGreaterThan(0);
        expect(unsigned.payloads.length).toBeGreaterThan(0);
        expect(JSON.parse(JSON.stringify(unsigned.state))).toEqual(unsigned.state);
        for (const p of unsigned.payloads) {
          // A 32-byte digest, or with hashAlgorithm PLAIN the data the key signs whole (a Solana message).
          expect(p.digest).toMatch(p.hashAlgorithm === 'PLAIN' ? /^(?:[0-9a-f]{2})+$/ : /^[0-9a-f]{64}$/);
          expect(p.publicKey).toBe(publicKeyHex(s.signer.publicKey));
          expect(p.keyId).toBe(s.signer.keyId);
        }
        const sigs = unsigned.payloads.map((p, payloadIndex) => {
          const { signature, v } = s.signer.sign(p.digest);
          return { payloadIndex, ...verifySignature(p.digest, signature, v, s.signer.publicKey) };
        });
        const signed = a.combine(unsigned, sigs);
        expect(signed.length).toBe(unsigned.txs.length);
        const decoded = await s.decode(signed[0] as SignedTx);
        expect(decoded.from.toLowerCase()).toBe(address.toLowerCase());
        expect(decoded.to.toLowerCase()).toBe(to.toLowerCase());
        expect(decoded.asset).toBe(asset.symbol);
        expect(decoded.amount).toBe(amount);
        expect(decoded.fee).toBeLessThanOrEqual(unsigned.fee);
        const sent = await a.broadcast(signed[0] as SignedTx);
        expect(sent).toEqual({ txid: signed[0]?.txid, alreadyKnown: false });
        expect((await a.broadcast(signed[0] as SignedTx)).alreadyKnown).toBe(true);
        await s.settle();
        const status = await a.txStatus(sent.txid, unsigned);
        expect(status.state).toBe('confirmed');
        expect(status.confirmations).toBeGreaterThanOrEqual(1);
        const [received] = await a.getBalances([to], [asset]);
        expect(received?.amount).toBe(amount);
      });
    }

    if (opts.sendsTogether) {
      it('sends three withdrawals of one account together: in order, each answered, each already known the second time, all confirmed', async () => {
        const many = a.broadcastMany;
        expect(many).toBeTypeOf('function');
        const address = a.addressFromPublicKey(s.signer.publicKey);
        await s.fund(address, a.nativeAsset, 10n ** BigInt(a.nativeAsset.decimals));
        const source: VaultSource = {
          vaultId: 'conformance',
          addresses: [{ address, publicKey: s.signer.publicKey, keyId: s.signer.keyId }],
          changeAddress: address,
        };
        const amount = 10n ** BigInt(Math.max(a.nativeAsset.decimals - 3, 0));
        const sent: { signed: SignedTx; unsigned: Awaited<ReturnType<LedgerAdaptor['craft']>>; to: string }[] = [];
        for (let i = 0; i < 3; i++) {
          const to = await s.recipient(a.nativeAsset);
          const unsigned = await a.craft(source, {
            reference: `conf-many-${i}-${Date.now()}`,
            recipientAddress: to,
            asset: a.nativeAsset,
            amount,
            fee: a.feeLevels()[0] as string,
          });
          const sigs = unsigned.payloads.map((p, payloadIndex) => {
            const { signature, v } = s.signer.sign(p.digest);
            return { payloadIndex, ...verifySignature(p.digest, signature, v, s.signer.publicKey) };
          });
          sent.push({ signed: a.combine(unsigned, sigs)[0] as SignedTx, unsigned, to });
        }
        const txs = sent.map((x) => x.signed);
        expect(await many!(txs)).toEqual(txs.map((t) => ({ ok: true, result: { txid: t.txid, alreadyKnown: false } })));
        expect(await many!(txs)).toEqual(txs.map((t) => ({ ok: true, result: { txid: t.txid, alreadyKnown: true } })));
        await s.settle();
        for (const x of sent) {
          expect((await a.txStatus(x.signed.txid, x.unsigned)).state).toBe('confirmed');
          expect((await a.getBalances([x.to], [a.nativeAsset]))[0]?.amount).toBe(amount);
        }
      });
    }
  });
}
