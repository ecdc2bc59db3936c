import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { TokenSession } from '../../custody/custody-auth.js';
import { CustodyRequestError } from '../../custody/errors.js';
import { UnavailableError } from '../../platform/errors.js';
import { startCustodyEmulator, type RunningCustodyEmulator, type StartCustodyEmulatorOptions } from '../custody-emulator/index.js';

/** The sandbox's approvers: three participants, any two of whom sign. */
const MEMBERS = ['alice', 'bob', 'carol'] as const;
const REQUIRED_APPROVALS = 2;
const ACCOUNT = 'sandbox';
/** The automatic policy's pause before each answer (activations and joins are done here at once). */
export const SANDBOX_APPROVAL_DELAY_MS = 500;

/**
 * The sandbox's custody side: the custody emulator, and the integrator's setup of a vault
 * done through the emulator's own API as the vendor samples do it: an account, activated
 * participants, a 2-of-3 vault, every member joined.
 */
export interface SandboxCustody {
  running: RunningCustodyEmulator;
  /** Creates an initialized 2-of-3 vault in the emulator; resolves with its custody id. */
  createVault(cryptoKind: 'ECDSA' | 'EDDSA', name: string): Promise<{ vaultId: string }>;
  stop(): Promise<void>;
}

/**
 * The emulator administrator's password: SANDBOX_CUSTODY_PASSWORD, else the one kept in
 * `{dir}/custody-password` (made at the first start). The sandbox empties the emulator's
 * state at each start, but the password is kept, so what a user has noted stays right.
 */
export function sandboxCustodyPassword(dir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dir, 'custody-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const made = randomBytes(18).toString('hex');
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  return made;
}

export interface SandboxCustodyOptions extends Pick<StartCustodyEmulatorOptions, 'redisUrl' | 'prefix' | 'port' | 'admin'> {
  logger: Logger;
  callback: { baseUrl: string; secret?: string };
  fetch?: typeof fetch;
}

export async function startSandboxCustody(opts: SandboxCustodyOptions): Promise<SandboxCustody> {
  const fetchFn = opts.fetch ?? fetch;
  const logger = opts.logger;
  const running = await startCustodyEmulator({
    redisUrl: opts.redisUrl,
    prefix: opts.prefix,
    port: opts.port,
    admin: opts.admin,
    logger,
    callback: { baseUrl: opts.callback.baseUrl, secret: opts.callback.secret },
    // Hands-free: new participants activate and join at once, and two of three approve.
    approverPolicy: { autoActivate: true, autoJoin: true, approve: 'quorum', delayMs: SANDBOX_APPROVAL_DELAY_MS },
  });
  const session = new TokenSession({
    baseUrl: running.url,
    user: opts.admin.user,
    password: opts.admin.password,
    clientId: 'byow-sandbox',
    fetch: fetchFn,
    logger,
  });
  // An emulator state the sandbox left in place (a prefix without its marker) may have an
  // administrator with another password: reported now, with what to do, rather than at the first vault.
  await session.header().catch(async (e: unknown) => {
    await running.stop();
    if (e instanceof CustodyRequestError && e.problem.upstreamStatus === 401) {
      throw new Error(
        `The custody emulator under Redis prefix '${opts.prefix}' has an administrator '${opts.admin.user}' with another password: ` +
          `set SANDBOX_CUSTODY_PASSWORD to it, or delete the keys '${opts.prefix}*' to start the emulator afresh`,
      );
    }
    throw e;
  });
  const basic = `Basic ${Buffer.from(`${opts.admin.user}:${opts.admin.password}`).toString('base64')}`;

  const call = async <T>(method: string, path: string, body?: unknown, device = false): Promise<{ status: number; json: T }> => {
    const operation = `${method} ${device ? '/emulator/v1' : ''}${path}`;
    let res: Response;
    let text: string;
    try {
      res = await fetchFn(`${device ? running.emulatorUrl : running.url}${path}`, {
        method,
        headers: { authorization: device ? basic : await session.header(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      text = await res.text();
    } catch (e) {
      throw new UnavailableError(`custody emulator ${operation} failed: ${(e as Error).message}`, e, 'ERR_CUSTODY_UNAVAILABLE');
    }
    let json: T;
    try {
      json = (text ? JSON.parse(text) : undefined) as T;
    } catch {
      throw new CustodyRequestError({ operation, upstreamStatus: res.status, upstreamDetails: 'the answer is not JSON' }, 'ERR_CUSTODY_BAD_RESPONSE');
    }
    if (res.status >= 400) {
      const p = json as { type?: string; title?: string; details?: string } | undefined;
      throw new CustodyRequestError({ operation, upstreamStatus: res.status, upstreamType: p?.type, upstreamTitle: p?.title, upstreamDetails: p?.details });
    }
    return { status: res.status, json };
  };
  const listAll = async <T>(path: string): Promise<T[]> => (await call<{ items: T[] }>('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`)).json.items;
  const conflictTolerant = async (work: () => Promise<unknown>): Promise<void> => {
    await work().catch((e: unknown) => {
      if (!(e instanceof CustodyRequestError && e.problem.upstreamStatus === 409)) throw e;
    });
  };

  async function account(): Promise<string> {
    const named = async () => (await listAll<{ id: string; name: string }>(`/accounts?filter=${ACCOUNT}`)).find((a) => a.name === ACCOUNT);
    const existing = await named();
    if (existing) return existing.id;
    await conflictTolerant(() => call('POST', '/accounts', { name: ACCOUNT }));
    const created = await named();
    if (!created) throw new UnavailableError(`custody emulator: account '${ACCOUNT}' was neither found nor created`, undefined, 'ERR_CUSTODY_UNAVAILABLE');
    return created.id;
  }

  async function participants(accountId: string): Promise<string[]> {
    type P = { id: string; name: string; status: string };
    const ids: string[] = [];
    const named = async (name: string) => (await listAll<P>(`/accounts/${accountId}/participants`)).find((x) => x.name === name);
    for (const name of MEMBERS) {
      let p = await named(name);
      if (!p) {
        let code: string | undefined;
        // A concurrent request may create the same participant first (409): it is read back then.
        await conflictTolerant(async () => {
          const created = await call<{ id: string; activationCode: string }>('POST', `/accounts/${accountId}/participants`, {
            name,
            email: `${name}@sandbox.invalid`,
            role: 'approver',
          });
          code = created.json.activationCode;
        });
        p = await named(name);
        if (!p) throw new UnavailableError(`custody emulator: participant '${name}' was neither found nor created`, undefined, 'ERR_CUSTODY_UNAVAILABLE');
        // Its device activates with the code (unless the policy did so already).
        if (code && p.status === 'NOT_ACTIVATED') await call('POST', `/participants/${p.id}/activate`, { activationCode: code }, true);
      }
      ids.push(p.id);
    }
    return ids;
  }

  return {
    running,
    async createVault(cryptoKind, name) {
      const accountId = await account();
      const members = await participants(accountId);
      const vault = await call<{ id: string }>('POST', `/accounts/${accountId}/vaults`, {
        name,
        cryptoKind,
        groups: [{ name: 'approvers', requiredApprovals: REQUIRED_APPROVALS, members: members.map((id) => ({ id })) }],
      });
      const vaultId = vault.json.id;
      // Each member's device joins (the automatic policy may have been first: 409 then).
      for (const id of members) await conflictTolerant(() => call('POST', `/participants/${id}/vaults/${vaultId}/join`, undefined, true));
      const status = (await call<{ status: string }>('GET', `/vaults/${vaultId}`)).json.status;
      if (status !== 'INITIALIZED')
        throw new UnavailableError(`custody emulator: vault ${vaultId} is ${status} after every member joined`, undefined, 'ERR_CUSTODY_UNAVAILABLE');
      return { vaultId };
    },
    stop: running.stop,
  };
}
