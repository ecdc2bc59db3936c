/** Shared checks of the deposit robustness tests (not a test file itself). */
import * as ecc from 'tiny-secp256k1';
import { expect } from 'vitest';
import type { Received } from '../webhooks/support.js';
import { ADMIN_KEY, type TestService } from '../helpers/service.js';

export const DEPOSIT_EVENTS = ['deposit.detected', 'deposit.confirmed', 'deposit.reverted'];

/** Subscribes `url` to every deposit event; returns the subscription's id. */
export async function subscribeDeposits(svc: TestService, url: string): Promise<string> {
  const sub = await svc.call('POST', '/api/v1.0/admin/webhooks', { key: ADMIN_KEY, body: { url, events: DEPOSIT_EVENTS } });
  expect(sub.status).toBe(201);
  return sub.body.id as string;
}

/** Registers a single-key vault whose key is made from `seed`; returns its address. */
export async function registerVault(svc: TestService, vaultId: string, ledgerId: string, seed: number): Promise<string> {
  const publicKey = Buffer.from(ecc.pointFromScalar(Buffer.alloc(32, seed), true)!).toString('hex');
  const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId, ledgerId, publicKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.address as string;
}

/**
 * The deposit events a receiver got, one per event id (delivery is at-least-once: a worker
 * killed mid-delivery sends an event again, with the same id), in the order each first arrived.
 */
export function distinctDepositEvents(received: Received[]): { id: string; type: string; sequence: number; depositId: string }[] {
  const seen = new Set<string>();
  const out: { id: string; type: string; sequence: number; depositId: string }[] = [];
  for (const r of received) {
    const b = r.body as { id?: string; type?: string; sequence?: number; depositId?: string };
    if (!b?.id || !b.depositId || seen.has(b.id)) continue;
    seen.add(b.id);
    out.push({ id: b.id, type: b.type as string, sequence: b.sequence as number, depositId: b.depositId });
  }
  return out;
}

/** Events of type `type` among those received, by event id. */
export const countEvents = (received: Received[], type: string): number => distinctDepositEvents(received).filter((e) => e.type === type).length;

/**
 * Every payment (`txids`, native ETH, one deposit each) was told exactly once detected, then
 * once confirmed, numbered 1 and 2, and nothing else was told.
 */
export function expectEachToldOnce(received: Received[], ledgerId: string, txids: string[]): void {
  const byDeposit = new Map<string, [string, number][]>();
  for (const e of distinctDepositEvents(received)) byDeposit.set(e.depositId, [...(byDeposit.get(e.depositId) ?? []), [e.type, e.sequence]]);
  const expected = txids.map((t) => `${ledgerId}:${t}:value`);
  expect([...byDeposit.keys()].sort()).toEqual([...expected].sort());
  for (const id of expected) {
    expect(byDeposit.get(id), id).toEqual([
      ['deposit.detected', 1],
      ['deposit.confirmed', 2],
    ]);
  }
}
