import { randomBytes } from 'node:crypto';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { ProblemError } from './problem.js';

const bip32 = BIP32Factory(ecc);

/** The public part of a BIP44 account backup, shaped as the spec's "Backup records". */
export interface SimAccountBackup {
  vaultId: string;
  backupData: string;
  bipLevel: number;
  cpar: string;
  parentFingerprint: string;
  childNumber: number;
  publicKey: string;
}

export const notSupported = (details: string) => new ProblemError(406, 'not_supported', 'Not supported', details);

/** A BIP44 keychain of a simulator vault: a random seed in memory, accounts derived on request. */
export function createKeychain(): BIP32Interface {
  return bip32.fromSeed(randomBytes(32));
}

const index = (text: string, what: string): number => {
  if (!/^\d{1,9}$/.test(text)) throw new ProblemError(400, 'bad_request', 'Bad request', `${what} must be a non-negative integer, got '${text}'`);
  return Number(text);
};

/** m/44'/coin'/account': the account node whose backup the custody service hands out. */
export function accountBackup(vaultId: string, root: BIP32Interface, coin: string, account: string): SimAccountBackup {
  const parent = root.deriveHardened(44).deriveHardened(index(coin, 'coinType'));
  const node = parent.deriveHardened(index(account, 'accountIdentifier'));
  return {
    vaultId,
    // The real service encrypts the private material with an external key; nothing secret here.
    backupData: 'simulator: no encrypted material',
    bipLevel: node.depth,
    cpar: Buffer.from(node.chainCode).toString('hex').toUpperCase(),
    parentFingerprint: Buffer.from(parent.fingerprint).toString('hex'),
    childNumber: node.index,
    publicKey: Buffer.from(node.publicKey).toString('hex').toUpperCase(),
  };
}
