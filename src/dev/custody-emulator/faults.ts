import { z } from 'zod';
import { otherS } from '../../ledger/signatures.js';
import type { EmulatorStore } from './store.js';
import { randomSigner } from './keys.js';
import type { CryptoKind } from './model.js';

/**
 * Misbehaviours of a custody service that the receiver must survive, injected on purpose.
 * Content faults (`corruptSignature`, `legacyV`, `highS`) are applied when the operation is
 * signed, so the operation record and every callback carry them, as a faulty release would.
 * Delivery faults are read each time a callback is sent (resends included), so a test can
 * clear `dropCallback` and resend to model reconciliation. `endStatus`: the operation ends
 * FAILED or ERROR instead of signing once its quorum approved, as a key-service failure would.
 */
export const emulatorFaultsSchema = z.strictObject({
  /** Extra wait before the callback is sent. */
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** Send the same callback this many times concurrently. */
  duplicate: z.number().int().min(1).max(50).optional(),
  /** Never send the callback; the operation is still COMPLETED. */
  dropCallback: z.boolean().optional(),
  /** Index of the signature to damage (one byte of s flipped). */
  corruptSignature: z.number().int().min(0).optional(),
  /** Send v as 27/28 with the historic, swapped meaning: 27 = 1, 28 = 0. */
  legacyV: z.boolean().optional(),
  /** Send s' = n − s (still valid ECDSA) with v flipped to match. */
  highS: z.boolean().optional(),
  /** Send two callbacks, each with half of the entries and their `originalEntryIds`. */
  partial: z.boolean().optional(),
  /** Echo a public key that is not the vault's. */
  swapKey: z.boolean().optional(),
  /** EdDSA callbacks carry `v` empty (`[]`) or leave it out. */
  edV: z.enum(['empty', 'absent']).optional(),
  endStatus: z.enum(['FAILED', 'ERROR']).optional(),
});
export type EmulatorFaults = z.infer<typeof emulatorFaultsSchema>;

/**
 * Faults of the approvers rather than of the service, set in process only (direct-control.ts):
 * the HTTP fault table refuses them, since over HTTP a decline is a decliner in the approver
 * policy and a held operation the manual policy. The automatic approvers obey them.
 */
export const approverFaultsSchema = z.strictObject({
  /** The quorum ends the operation in this state instead of signing it (a member declines, …). */
  end: z.enum(['DECLINED', 'CANCELED', 'FAILED', 'ERROR']).optional(),
  /** Approvals never come: the operation stays PENDING (until canceled). */
  holdApprovals: z.boolean().optional(),
  /** When a sign operation ends unsigned, send a callback without signatures to say so. */
  notifyEnd: z.boolean().optional(),
});
export type ApproverFaults = z.infer<typeof approverFaultsSchema>;

export interface ApproverFaultTable {
  global: ApproverFaults;
  vaults: Map<string, ApproverFaults>;
}

export const approverFaultsFor = (ctx: { approverFaults: ApproverFaultTable }, vaultId: string): ApproverFaults => ({
  ...ctx.approverFaults.global,
  ...ctx.approverFaults.vaults.get(vaultId),
});

export interface FaultTable {
  global: EmulatorFaults;
  vaults: Record<string, EmulatorFaults>;
}

export async function faultTable(ctx: { store: EmulatorStore }): Promise<FaultTable> {
  return (await ctx.store.get<FaultTable>('meta', 'faults')) ?? { global: {}, vaults: {} };
}

export async function faultsFor(ctx: { store: EmulatorStore }, vaultId: string): Promise<EmulatorFaults> {
  const table = await faultTable(ctx);
  return { ...table.global, ...table.vaults[vaultId] };
}

/** Replaces the faults of one vault, or the global ones when `vaultId` is absent. */
export async function setFaults(ctx: { store: EmulatorStore }, faults: EmulatorFaults, vaultId?: string): Promise<FaultTable> {
  return ctx.store.exclusive(async () => {
    const table = await faultTable(ctx);
    if (vaultId === undefined) table.global = faults;
    else table.vaults[vaultId] = faults;
    await ctx.store.put('meta', 'faults', table);
    return table;
  });
}

export interface CallbackBody {
  publicKeys: string[];
  providerData: string;
  dataToSign: string[];
  signatures: string[];
  v: number[];
  originalEntryIds?: number[];
}

/** What goes on the wire: `v` may be left out (EdDSA, `edV: 'absent'`). */
export type SentCallbackBody = Omit<CallbackBody, 'v'> & { v?: number[] };

function highS(sigHex: string): string {
  return (
    sigHex.slice(0, 64) +
    Buffer.from(otherS(Buffer.from(sigHex, 'hex')).subarray(32))
      .toString('hex')
      .toUpperCase()
  );
}

function flipLastByte(sigHex: string): string {
  const last = parseInt(sigHex.slice(-2), 16) ^ 0xff;
  return sigHex.slice(0, -2) + last.toString(16).padStart(2, '0').toUpperCase();
}

/** The content faults (`highS`, `legacyV`, `corruptSignature`) applied to freshly made signatures. */
export function applyContentFaults(
  cryptoKind: CryptoKind,
  signed: { signatures: string[]; v: number[] },
  faults: EmulatorFaults,
): { signatures: string[]; v: number[] } {
  const signatures = [...signed.signatures];
  const v = [...signed.v];
  // r/s and v only mean something for ECDSA; an EdDSA signature has neither.
  if (cryptoKind === 'ECDSA') {
    for (let i = 0; i < signatures.length; i++) {
      if (faults.highS) {
        signatures[i] = highS(signatures[i] as string);
        v[i] = (v[i] as number) ^ 1;
      }
      if (faults.legacyV) v[i] = v[i] === 1 ? 27 : 28;
    }
  }
  const bad = faults.corruptSignature;
  if (bad !== undefined && bad < signatures.length) signatures[bad] = flipLastByte(signatures[bad] as string);
  return { signatures, v };
}

/** The POST bodies one delivery consists of (two for `partial`), before duplication. */
export function callbackBodies(body: CallbackBody, cryptoKind: CryptoKind, faults: EmulatorFaults): SentCallbackBody[] {
  const stranger = faults.swapKey ? randomSigner(cryptoKind).keyId : undefined;
  let shaped: SentCallbackBody = stranger ? { ...body, publicKeys: body.publicKeys.map(() => stranger) } : body;
  if (cryptoKind === 'EDDSA' && faults.edV) {
    const { v: _v, ...rest } = shaped;
    shaped = faults.edV === 'empty' ? { ...rest, v: [] } : rest;
  }
  const count = shaped.dataToSign.length;
  if (!faults.partial) return [shaped];
  if (count < 2) return [{ ...shaped, originalEntryIds: [0] }];
  const cut = Math.ceil(count / 2);
  const half = (ids: number[]): SentCallbackBody => ({
    publicKeys: ids.map((i) => shaped.publicKeys[i] as string),
    providerData: shaped.providerData,
    dataToSign: ids.map((i) => shaped.dataToSign[i] as string),
    signatures: ids.map((i) => shaped.signatures[i] as string),
    ...(shaped.v ? { v: shaped.v.length ? ids.map((i) => shaped.v?.[i] as number) : [] } : {}),
    originalEntryIds: ids,
  });
  const all = [...Array(count).keys()];
  return [half(all.slice(0, cut)), half(all.slice(cut))];
}
