import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { ADMIN_KEY, startTestService, TEST_CALLBACK_SECRET, type TestService } from './service.js';

export interface Loop {
  svc: TestService;
  custody: RunningInMemoryCustodyEmulator;
  /** Creates a vault in the custody emulator and registers it; returns its id and address. */
  vault(ledgerId: string, opts?: { addressFormat?: string }): Promise<{ vaultId: string; address: string; publicKey: string }>;
  /** Polls a withdrawal until `until` holds (or times out). */
  waitFor(vaultId: string, operationID: string, until: (op: any) => boolean, timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

/**
 * The whole signing loop over real HTTP: the service (with in-process workers unless told
 * otherwise) and the in-memory custody emulator calling its callback (with HMAC unless told otherwise), on free ports.
 */
export async function startLoop(
  ledgers: Record<string, unknown>,
  opts: {
    env?: Record<string, string>;
    workers?: boolean;
    quorum?: { approvers: number; required: number; approvalDelayMs: number };
    /** null: callbacks without HMAC and a receiver without CALLBACK_SECRET, as with the real service. */
    callbackSecret?: string | null;
  } = {},
): Promise<Loop> {
  const port = await freePort();
  const secret = opts.callbackSecret === undefined ? TEST_CALLBACK_SECRET : (opts.callbackSecret ?? undefined);
  const custody = await startInMemoryCustodyEmulator({
    callback: { secret, baseUrl: `http://127.0.0.1:${port}`, attempts: 3, baseDelayMs: 50 },
    quorum: opts.quorum ?? { approvers: 3, required: 2, approvalDelayMs: 5 },
  });
  const svc = await startTestService(ledgers, {
    pipeline: true,
    workers: opts.workers ?? true,
    port,
    env: { CUSTODY_URL: custody.url, CONFIRM_POLL_MS: '100', JOB_LOCK_MS: '2000', CALLBACK_SECRET: secret ?? '', ...opts.env },
  });
  return {
    svc,
    custody,
    vault: async (ledgerId, o = {}) => {
      const adaptor = svc.core.registry.get(ledgerId);
      const v = custody.control.createVault(adaptor.scheme === 'ed25519' ? 'EDDSA' : 'ECDSA', { ledger: ledgerId });
      const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: v.vaultId, ledgerId, publicKey: v.publicKey, ...o } });
      if (res.status !== 201) throw new Error(`vault registration failed: ${JSON.stringify(res.body)}`);
      return { vaultId: v.vaultId, address: res.body.address as string, publicKey: v.publicKey };
    },
    waitFor: async (vaultId, operationID, until, timeoutMs = 20_000) => {
      const end = Date.now() + timeoutMs;
      let last: any;
      while (Date.now() < end) {
        last = (await svc.call('GET', `/api/v1.0/vaults/${vaultId}/withdrawals/${operationID}`, { key: ADMIN_KEY })).body;
        if (until(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`withdrawal ${operationID} did not reach the expected state; last: ${JSON.stringify(last)}`);
    },
    stop: async () => {
      await svc.stop();
      await custody.stop();
    },
  };
}
