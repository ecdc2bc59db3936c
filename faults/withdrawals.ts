/**
 * The client side of a fault scenario: withdrawals sent the way a careful integrator sends them
 * (an Idempotency-Key, retried on another API process when one fails), then counted against
 * the chain: what was accepted, what ended how, what got lost, what was sent twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcProvider } from 'ethers';
import { API_KEY, type Stack } from './stack.js';

export const RECIPIENT = '0x00000000000000000000000000000000000000B0';

export interface Tally {
  scenario: string;
  withdrawalsIn: number;
  confirmed: number;
  failed: Record<string, number>;
  /** Accepted (200) withdrawals that did not end CONFIRMED or FAILED, or whose record is gone. */
  lost: number;
  /** Transactions on chain beyond one per confirmed withdrawal. */
  sentTwice: number;
  /** 500-599 answers, split: 503 asks to retry and is part of the contract; any other is a defect. */
  answers503: number;
  answers5xxOther: number;
  seconds: number;
  notes: string[];
}

export function newTally(scenario: string): Tally {
  return { scenario, withdrawalsIn: 0, confirmed: 0, failed: {}, lost: 0, sentTwice: 0, answers503: 0, answers5xxOther: 0, seconds: 0, notes: [] };
}

export interface Accepted {
  vaultId: string;
  address: string;
  operationID: string;
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: json };
}

/** Any API process that answers, starting at `i`. */
function apiUrl(stack: Stack, i: number): string {
  for (let k = 0; k < stack.apis.length; k++) {
    const a = stack.apis[(i + k) % stack.apis.length];
    if (a?.alive()) return a.url;
  }
  return (stack.apis[i % stack.apis.length] as { url: string }).url;
}

/** Registers `n` custody vaults and funds each. */
export async function fundedVaults(stack: Stack, n: number): Promise<{ vaultId: string; address: string }[]> {
  const out: { vaultId: string; address: string }[] = [];
  for (let i = 0; i < n; i++) {
    const v = stack.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    const r = await call(apiUrl(stack, i), 'POST', '/api/v1.0/admin/vaults', { vaultId: v.vaultId, ledgerId: 'ethdev', publicKey: v.publicKey });
    if (r.status !== 201) throw new Error(`vault registration: ${JSON.stringify(r.body)}`);
    await stack.funder.sendEth(r.body.address as string, 10n ** 18n);
    out.push({ vaultId: v.vaultId, address: r.body.address as string });
  }
  return out;
}

/**
 * Sends one withdrawal: to API `i`, and on a dropped connection or a 5xx to the next live one
 * with the same Idempotency-Key, until it is accepted or refused. Returns undefined when refused.
 */
export async function submit(stack: Stack, tally: Tally, vault: { vaultId: string; address: string }, i: number, key: string): Promise<Accepted | undefined> {
  const end = Date.now() + 120_000;
  for (let attempt = 0; Date.now() < end; attempt++) {
    try {
      const r = await call(
        apiUrl(stack, i + attempt),
        'POST',
        `/api/v1.0/vaults/${vault.vaultId}/withdrawals`,
        { recipientAddress: RECIPIENT, amount: '0.001', description: key },
        { 'idempotency-key': key },
      );
      if (r.status === 200) return { ...vault, operationID: r.body.operationID as string };
      if (r.status === 503) tally.answers503++;
      else if (r.status >= 500) {
        tally.answers5xxOther++;
        tally.notes.push(`POST withdrawal ${key}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      } else if (!(r.status === 409 && r.body?.errCode === 'ERR_IDEMPOTENCY_IN_PROGRESS')) {
        tally.notes.push(`withdrawal ${key} refused: ${r.status} ${r.body?.errCode}: ${String(r.body?.details).slice(0, 160)}`);
        return undefined;
      }
    } catch {
      // The process died under the request: the key makes the retry safe.
    }
    await sleep(300);
  }
  tally.notes.push(`withdrawal ${key}: no answer within 120 s`);
  return undefined;
}

/** Waits for every accepted withdrawal to end, then counts them and the chain. */
export async function settle(stack: Stack, tally: Tally, accepted: Accepted[], timeoutMs = 180_000): Promise<void> {
  tally.withdrawalsIn = accepted.length;
  const final = new Map<string, any>();
  const end = Date.now() + timeoutMs;
  while (final.size < accepted.length && Date.now() < end) {
    for (const [i, a] of accepted.entries()) {
      if (final.has(a.operationID)) continue;
      const r = await call(apiUrl(stack, i), 'GET', `/api/v1.0/vaults/${a.vaultId}/withdrawals/${a.operationID}`).catch(() => undefined);
      if (r?.status === 404) final.set(a.operationID, { status: 'GONE' });
      else if (r?.status === 200 && ['CONFIRMED', 'FAILED'].includes(r.body.status)) final.set(a.operationID, r.body);
    }
    if (final.size < accepted.length) await sleep(500);
  }
  const byVault = new Map<string, { address: string; txids: string[] }>();
  for (const a of accepted) {
    const op = final.get(a.operationID);
    const v = byVault.get(a.vaultId) ?? { address: a.address, txids: [] };
    byVault.set(a.vaultId, v);
    if (!op || op.status === 'GONE') {
      tally.lost++;
      tally.notes.push(`withdrawal ${a.operationID}: ${op ? 'record gone' : 'not final'}`);
    } else if (op.status === 'CONFIRMED') {
      tally.confirmed++;
      v.txids.push(...(op.txids as string[]));
    } else {
      const reason = String(op.failureReason ?? 'no reason').slice(0, 60);
      tally.failed[reason] = (tally.failed[reason] ?? 0) + 1;
    }
  }
  // On chain: every transaction from a vault must be one a confirmed withdrawal names.
  const p = new JsonRpcProvider(stack.anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const height = await p.getBlockNumber();
    const sent = new Map<string, string[]>();
    for (let n = 0; n <= height; n++) {
      const block = await p.getBlock(n, true);
      for (const tx of block?.prefetchedTransactions ?? []) {
        const from = tx.from.toLowerCase();
        sent.set(from, [...(sent.get(from) ?? []), tx.hash]);
      }
    }
    for (const v of byVault.values()) {
      const onChain = sent.get(v.address.toLowerCase()) ?? [];
      tally.sentTwice += Math.max(0, onChain.length - v.txids.length);
      const missing = v.txids.filter((t) => !onChain.includes(t));
      if (missing.length) tally.notes.push(`confirmed but not on chain: ${missing.join(', ')}`);
    }
  } finally {
    p.destroy();
  }
}
