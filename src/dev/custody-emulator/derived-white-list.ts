import type { BIP32Interface } from 'bip32';
import { address, crypto as bitcoinCrypto, networks } from 'bitcoinjs-lib';
import { keccak256 } from 'ethers';
import * as ecc from 'tiny-secp256k1';
import { parsePublicKey } from '../../ledger/public-key.js';
import { bip32FromPublicKey } from './keys.js';
import type { PolicyRules } from './model.js';

/**
 * How far below an entry keys are looked for: BIP44's address gap limit (20) on each of the
 * two chains (external 0, change 1), and as many direct children. An address further down
 * is not recognised: a policy check has to end, and 20 is where wallets stop looking too.
 */
export const DERIVED_GAP_LIMIT = 20;

/**
 * What an address commits to, on the ledgers whose hash algorithms the emulator knows:
 * Ethereum (SHA3_256: the key's Keccak-256 tail) and Bitcoin (DOUBLE_SHA256: the key's HASH160
 * in P2WPKH and P2PKH, or the HASH160 of its P2WPKH script in P2SH-P2WPKH; main, test and
 * regtest networks). The custody service in bring-your-own-wallet mode knows no ledger, so it
 * can only recognise what it can compute from a key; other addresses match no entry.
 */
type Target = { kind: 'evm' | 'pkh' | 'sh'; hash: string };

const NETWORKS = [networks.bitcoin, networks.testnet, networks.regtest];
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function targetOf(text: string): Target | undefined {
  if (/^0x[0-9a-f]{40}$/i.test(text)) return { kind: 'evm', hash: text.slice(2).toLowerCase() };
  try {
    const segwit = address.fromBech32(text);
    if (segwit.version === 0 && segwit.data.length === 20 && NETWORKS.some((n) => n.bech32 === segwit.prefix)) return { kind: 'pkh', hash: hex(segwit.data) };
  } catch {
    // not bech32: base58 next
  }
  try {
    const legacy = address.fromBase58Check(text);
    if (NETWORKS.some((n) => n.pubKeyHash === legacy.version)) return { kind: 'pkh', hash: hex(legacy.hash) };
    if (NETWORKS.some((n) => n.scriptHash === legacy.version)) return { kind: 'sh', hash: hex(legacy.hash) };
  } catch {
    // neither: no key of ours makes it
  }
  return undefined;
}

/** What one key commits to in each kind of address. */
function hashesOfKey(pubkey: Uint8Array): Target[] {
  const keyHash = bitcoinCrypto.hash160(pubkey);
  return [
    // Ethereum: the last 20 bytes of Keccak-256 over the uncompressed point without its 04 prefix.
    { kind: 'evm', hash: keccak256(ecc.pointCompress(pubkey, false).subarray(1)).slice(-40) },
    { kind: 'pkh', hash: hex(keyHash) },
    { kind: 'sh', hash: hex(bitcoinCrypto.hash160(Uint8Array.from([0x00, 0x14, ...keyHash]))) },
  ];
}

function nodeOf(entry: PolicyRules['derivedWhiteList'][number]): BIP32Interface | undefined {
  try {
    const key = parsePublicKey(entry.publicKey, 'secp256k1');
    const chainCode = Buffer.from(entry.chainCode.replace(/^0x/, ''), 'hex');
    if (chainCode.length !== 32) return undefined;
    return bip32FromPublicKey(Uint8Array.from(key.bytes), Uint8Array.from(chainCode));
  } catch {
    return undefined;
  }
}

/**
 * Tells whether a recipient address belongs to one of the extended public keys of a derived
 * white list: the key itself, one of its first DERIVED_GAP_LIMIT children, or one of the
 * first DERIVED_GAP_LIMIT keys of its external (0) and change (1) chains. An entry is what a
 * BIP44 account backup gives (`publicKey`, `cpar` as `chainCode`, `bipLevel` as `level`,
 * `parentFingerprint`, `childNumber`), so another vault's account can be named by its backup.
 * The keys are derived once per matcher (about 40 ms an entry), and only when a recipient
 * needs them.
 */
export function derivedWhiteListMatcher(entries: PolicyRules['derivedWhiteList']): (recipient: string) => boolean {
  let known: Set<string> | undefined;
  const derive = (): Set<string> => {
    const out = new Set<string>();
    const add = (pubkey: Uint8Array) => hashesOfKey(pubkey).forEach((t) => out.add(`${t.kind}:${t.hash}`));
    for (const entry of entries) {
      const root = nodeOf(entry);
      if (!root) continue;
      add(Uint8Array.from(root.publicKey));
      for (const parent of [root, root.derive(0), root.derive(1)]) {
        for (let i = 0; i < DERIVED_GAP_LIMIT; i++) add(Uint8Array.from(parent.derive(i).publicKey));
      }
    }
    return out;
  };
  return (recipient) => {
    const target = targetOf(recipient.trim());
    if (!target) return false;
    known ??= derive();
    return known.has(`${target.kind}:${target.hash}`);
  };
}

/** Whether an entry names a secp256k1 extended public key (a 33/65-byte or DER key and a 32-byte chain code). */
export const derivedEntryUsable = (entry: PolicyRules['derivedWhiteList'][number]): boolean => nodeOf(entry) !== undefined;
