import { createHash, randomBytes } from 'node:crypto';
import { keccak256 } from 'ethers';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, dropPrefix, expectValidSignature, startHarness, type Answer, type Harness } from './harness.js';

/**
 * The vendor's public sample integrations (unbound-sample-code: blockchain/ethereum/byow,
 * blockchain/bitcoin/byow, blockchain/ethereum/erc20's CASP client), written down as request
 * tables: for each step the method, path and body the sample sends on the `/casp` base, and the
 * fields it reads from the answer (`a || b` is the sample's fallback, `[0]` the first element,
 * `[]` every element). Device steps are what a participant's phone or bot does, played through
 * the emulator-only routes.
 *
 * The samples themselves run unchanged in vendor-sample-runs.test.ts; these tables stay for what
 * no run reaches: MULTI_COIN's coin added as typed at the prompt (the sample stops before it, at
 * an error of its own), both byow samples on both bases with both hierarchies, and the 1.0.1811
 * key-chain list shapes.
 *
 * Which revision each speaks:
 * - ethereum/byow: 1.0.1811 and 1.0.1905 alike (form login on /auth/tokens, lists read as
 *   `items || body`, `id || vaultID`); it sends rawTransactions only when the status release is
 *   at least 1812.
 * - bitcoin/byow: 1.0.1811 (it reads the coin list as `coins`, the 1.0.1810-1.0.1812 shape).
 * - ethereum/erc20: 1.0.1905 (an API key, paged and filtered lists, the join request as
 *   `JOIN_VAULT` with top-level groups, the address list as a page of keys).
 */

type Vars = Record<string, string>;
interface ApiStep {
  say: string;
  method: 'GET' | 'POST' | 'PUT';
  /** `{name}` is replaced from the variables saved by earlier steps. */
  path: string;
  body?: unknown;
  /** The login: a form-encoded body with HTTP Basic. */
  formLogin?: true;
  status?: number;
  /** Fields the sample reads: each must be present. */
  reads?: string[];
  /** Variables to keep: name → field. */
  save?: Record<string, string>;
  /** Values the sample waits for or relies on: field → value. */
  expect?: Record<string, unknown>;
}
type DeviceStep = { device: 'activate' | 'join' | 'approve'; say: string };
type Step = ApiStep | DeviceStep;

const group = [{ name: 'Group A', requiredApprovals: 1, members: [{ id: '{participant}' }] }];

/** Login, account, participant: what both byow samples do first. */
const byowStart: Step[] = [
  { say: 'connect', method: 'GET', path: '/status?withDetails=true', reads: ['version'], save: { version: 'version' } },
  { say: 'login', method: 'POST', path: '/auth/tokens', formLogin: true, status: 201, reads: ['access_token', 'expires_in'] },
  { say: 'list accounts', method: 'GET', path: '/accounts', reads: ['items || .'] },
  { say: 'create account', method: 'POST', path: '/accounts', body: { name: 'Test' }, status: 201, reads: ['id', 'name'], save: { account: 'id' } },
  { say: 'list participants', method: 'GET', path: '/accounts/{account}/participants', reads: ['items || .'] },
  {
    say: 'create participant',
    method: 'POST',
    path: '/accounts/{account}/participants',
    body: { name: 'Bot1', email: 'Bot1@caspbots.com', role: 'Bot' },
    status: 201,
    reads: ['id', 'activationCode', 'name'],
    save: { participant: 'id', code: 'activationCode' },
  },
  { device: 'activate', say: 'the bot activates' },
  { say: 'wait for activation', method: 'GET', path: '/participants/{participant}', expect: { isActive: true } },
  { say: 'list vaults', method: 'GET', path: '/accounts/{account}/vaults', reads: ['items || .'] },
];

/** The byow samples' vault creation: prompts answered with their defaults, then fixed fields. */
const byowVault = (name: string, hierarchy: 'NONE' | 'BIP44', coinType: number, providerKind: string): Step[] => [
  {
    say: `create ${hierarchy} vault`,
    method: 'POST',
    path: '/accounts/{account}/vaults',
    body: {
      name,
      description: 'BYOW demo',
      hierarchy,
      coinType,
      providerKind,
      cryptoKind: 'ECDSA',
      firstAccountName: 'Default',
      subAccountsToDerive: 1,
      groups: group,
    },
    status: 201,
    reads: ['id || vaultID', 'name'],
    save: { vault: 'id || vaultID' },
  },
  { device: 'join', say: 'the bot joins' },
  {
    say: 'wait for the vault',
    method: 'GET',
    path: '/vaults/{vault}',
    reads: ['hierarchy', 'cryptoKind', 'id'],
    expect: { status: 'INITIALIZED', isActive: true },
  },
];

const ethByow = (hierarchy: 'NONE' | 'BIP44'): Step[] => [
  ...byowStart,
  ...byowVault(`Demo ETH_FULL ${hierarchy}`, hierarchy, 60, 'ETH_BYOW'),
  hierarchy === 'BIP44'
    ? {
        say: 'new address key',
        method: 'POST',
        path: '/vaults/{vault}/coins/60/accounts/0/chains/external/addresses',
        reads: ['publicKey'],
        save: { key: 'publicKey' },
      }
    : { say: 'vault key', method: 'GET', path: '/vaults/{vault}/publickey', reads: ['publicKey'], save: { key: 'publicKey' } },
  { say: 'sign', method: 'POST', path: '/vaults/{vault}/sign', body: 'eth-sign', reads: ['operationID'], save: { op: 'operationID' } },
  { device: 'approve', say: 'the bot approves' },
  { say: 'wait for the signature', method: 'GET', path: '/operations/sign/{op}', reads: ['signatures[0]', 'v[0]'], expect: { status: 'COMPLETED' } },
];

const ethMultiCoin: Step[] = [
  ...byowStart,
  ...byowVault('Demo MULTI_COIN', 'BIP44', 60, 'ETH_BYOW'),
  { say: 'list coins', method: 'GET', path: '/vaults/{vault}/coins', reads: ['items || coins || .'] },
  { say: 'add a coin as typed at the prompt', method: 'POST', path: '/vaults/{vault}/coins', body: { coinType: '0' } },
  { say: 'list coins again', method: 'GET', path: '/vaults/{vault}/coins', reads: ['items || coins || .'] },
];

const btcByow: Step[] = [
  ...byowStart,
  ...byowVault('Demo BTCTEST_FULL', 'BIP44', 1, 'BTCTEST'),
  {
    say: 'new address key',
    method: 'POST',
    path: '/vaults/{vault}/coins/1/accounts/0/chains/external/addresses',
    reads: ['publicKey'],
    save: { key: 'publicKey' },
  },
  { say: 'sign the inputs', method: 'POST', path: '/vaults/{vault}/sign', body: 'btc-sign', reads: ['operationID'], save: { op: 'operationID' } },
  { device: 'approve', say: 'the bot approves' },
  { say: 'wait for the signatures', method: 'GET', path: '/operations/sign/{op}', reads: ['signatures[0]', 'signatures[1]'], expect: { status: 'COMPLETED' } },
  { say: 'list coins', method: 'GET', path: '/vaults/{vault}/coins', reads: ['coins'] },
  { say: 'add a coin as typed at the prompt', method: 'POST', path: '/vaults/{vault}/coins', body: { coinType: '0' } },
];

/** The ERC-20 client: an API key as bearer, a vault per configured entry, its join awaited, its default key. */
const erc20Vault = (name: string, hierarchy: 'NONE' | 'BIP44'): Step[] => [
  { say: 'find the vault by name', method: 'GET', path: `/accounts/{account}/vaults?limit=1&filter=${encodeURIComponent(name)}`, reads: ['items || .'] },
  {
    say: 'create the vault',
    method: 'POST',
    path: '/accounts/{account}/vaults',
    body: {
      cryptoKind: 'ECDSA',
      name,
      providerKind: 'ETHTEST-ROPSTEN',
      hierarchy,
      ...(hierarchy === 'BIP44' ? { firstAccountName: 'Default', coinType: 60 } : {}),
      groups: [{ name: 'A', requiredApprovals: 1, members: [{ id: '{participant}' }] }],
    },
    status: 201,
    reads: ['id'],
    save: { vault: 'id' },
  },
  { say: 'read the vault', method: 'GET', path: '/vaults/{vault}', reads: ['statusText', 'hierarchy', 'name'], expect: { isActive: false } },
  {
    say: 'pending operations',
    method: 'GET',
    path: '/accounts/{account}/operations?limit=10&status=PENDING&sort=createdAt:desc',
    reads: ['items || .'],
    save: { join: 'join-of-vault' },
  },
  {
    say: 'the join request',
    method: 'GET',
    path: '/operations/{join}',
    reads: ['description', 'groups[].members[].isApproved', 'groups[].members[].label'],
    expect: { status: 'PENDING', kind: 'JOIN_VAULT' },
  },
  { device: 'join', say: 'the bot joins' },
  { say: 'the join request again', method: 'GET', path: '/operations/{join}', expect: { status: 'COMPLETED' } },
  ...(hierarchy === 'NONE'
    ? [{ say: 'default key', method: 'GET', path: '/vaults/{vault}/publickey', reads: ['publicKey'], save: { key: 'publicKey' } } as ApiStep]
    : ([
        { say: 'coins', method: 'GET', path: '/vaults/{vault}/coins', reads: ['(items || coins || .)[0]'] },
        { say: 'accounts', method: 'GET', path: '/vaults/{vault}/coins/60/accounts', reads: ['(items || .)[0].index'] },
        {
          say: 'last address key',
          method: 'GET',
          path: '/vaults/{vault}/coins/60/accounts/0/chains/external/addresses?limit=1&sort=lastUpdatedAt:desc',
          reads: ['(items || .)[0]'],
          save: { key: '(items || .)[0]' },
        },
      ] as ApiStep[])),
  {
    say: 'sign (a transfer carries the raw transaction)',
    method: 'POST',
    path: '/vaults/{vault}/sign',
    body: 'eth-sign',
    reads: ['operationID'],
    save: { op: 'operationID' },
  },
  { say: 'the sign operation', method: 'GET', path: '/operations/sign/{op}', reads: ['status'] },
  {
    say: 'who must approve',
    method: 'GET',
    path: '/operations/{op}',
    reads: ['groups[].members[].isApproved', 'groups[].members[].label'],
    expect: { status: 'PENDING' },
  },
  { device: 'approve', say: 'the bot approves' },
  { say: 'the signed operation', method: 'GET', path: '/operations/sign/{op}', reads: ['signatures[0]', 'v[0]', 'details'], expect: { status: 'COMPLETED' } },
];

const erc20: Step[] = [
  { say: 'list accounts', method: 'GET', path: '/accounts', reads: ['(items || .)[0].id'], save: { account: '(items || .)[0].id' } },
  {
    say: 'list participants',
    method: 'GET',
    path: '/accounts/{account}/participants',
    reads: ['(items || .)[].name', '(items || .)[].isActive', '(items || .)[].status'],
  },
  ...erc20Vault('UBTKN Contract', 'NONE'),
  ...erc20Vault('UBTKN exchange', 'BIP44'),
];

/** Reads `a || b` alternatives, `.x`, `[0]` and `[]` (every element; present when one is). */
function pick(json: unknown, expr: string): unknown {
  const grouped = /^\((.+)\)(.*)$/.exec(expr);
  if (grouped) return pick(pick(json, grouped[1] as string), `.${grouped[2] as string}`.replace(/^\.\./, '.').replace(/^\.\[/, '['));
  for (const alt of expr.split(' || ')) {
    let values: unknown[] = [json];
    for (const part of alt.match(/\[\]|\[\d+\]|[^.[\]]+/g) ?? []) {
      if (part === '[]') values = values.flatMap((v) => (Array.isArray(v) ? v : []));
      else if (part.startsWith('[')) values = values.map((v) => (Array.isArray(v) ? v[Number(part.slice(1, -1))] : undefined));
      else values = values.map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[part] : undefined));
    }
    const found = alt.includes('[]') ? values.filter((v) => v !== undefined) : values[0];
    if (alt.includes('[]') ? (found as unknown[]).length : found !== undefined && found !== null && found !== '') return found;
  }
  return undefined;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

/** The sign bodies the samples build (their shapes; the transaction bytes are stand-ins hashed as they hash them). */
function signBody(kind: string, vars: Vars, includeRaw: boolean): Record<string, unknown> {
  if (kind === 'btc-sign') {
    const raws = [randomBytes(80), randomBytes(80)];
    return {
      description: 'BYOW',
      dataToSign: raws.map((r) => sha256(sha256(r)).toString('hex')),
      publicKeys: raws.map(() => vars.key),
      ledgerHashAlgorithm: 'DOUBLE_SHA256',
      ledger: 'BTCTEST',
      rawTransactions: raws.map((r) => r.toString('hex')),
      providerData: JSON.stringify({
        request: { amount: 0.001, asset: 'BTC', recipientAddress: 'tb1q', fee: '1m', description: 'pay back', coin: 1, account: 0 },
        txs: [{ serialized: '00' }],
        recipients: [],
        cryptoKind: 'ECDSA',
      }),
    };
  }
  const raw = randomBytes(90);
  const hash = keccak256(raw).slice(2);
  const body: Record<string, unknown> = {
    dataToSign: [hash],
    publicKeys: [vars.key],
    description: 'Test transaction Eth',
    details: JSON.stringify({ rawTx: { value: '0x1' } }),
  };
  // ethereum/byow: only from release 1812; the ERC-20 client: on transfers.
  if (includeRaw) Object.assign(body, { rawTransactions: [raw.toString('hex')], ledgerHashAlgorithm: 'SHA3_256' });
  return body;
}

async function replay(
  h: Harness,
  steps: Step[],
  o: { token?: string; vars?: Vars; includeRaw?: boolean } = {},
): Promise<{ passed: string[]; vars: Vars; release: number }> {
  const vars: Vars = { ...o.vars };
  let token = o.token;
  let release = 0;
  const passed: string[] = [];
  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? `{${k}}`);
  const fillDeep = (v: unknown): unknown =>
    typeof v === 'string'
      ? fill(v)
      : Array.isArray(v)
        ? v.map(fillDeep)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillDeep(x)]))
          : v;
  for (const step of steps) {
    if ('device' in step) {
      const p = vars.participant as string;
      const path =
        step.device === 'activate'
          ? `/participants/${p}/activate`
          : step.device === 'join'
            ? `/participants/${p}/vaults/${vars.vault as string}/join`
            : `/participants/${p}/operations/${vars.op as string}/approve`;
      const res = await h.device('POST', path, step.device === 'activate' ? { activationCode: vars.code } : undefined);
      expect(res.status, `${step.say}: ${JSON.stringify(res.json)}`).toBe(200);
      passed.push(step.say);
      continue;
    }
    let res: Answer;
    if (step.formLogin) {
      const form = `grant_type=password&client_id=test&scope=/mng&username=${ADMIN.user}&password=${encodeURI(ADMIN.password)}`;
      res = await h.call(step.method, step.path, form, { base: 'legacy', form: true, basic: ADMIN });
      token = res.json?.access_token as string;
    } else {
      const body = typeof step.body === 'string' ? signBody(step.body, vars, o.includeRaw ?? release >= 1812) : fillDeep(step.body);
      res = await h.call(step.method, fill(step.path), body, { base: 'legacy', token });
    }
    expect(res.status, `${step.say}: ${JSON.stringify(res.json)}`).toBe(step.status ?? 200);
    for (const field of step.reads ?? []) expect(pick(res.json, field), `${step.say} reads ${field} from ${JSON.stringify(res.json)}`).toBeDefined();
    for (const [field, value] of Object.entries(step.expect ?? {})) expect(pick(res.json, field), `${step.say}: ${field}`).toEqual(value);
    for (const [name, field] of Object.entries(step.save ?? {})) {
      if (field === 'join-of-vault') {
        const ops = pick(res.json, 'items || .') as { vaultID: string; kind: string; operationID: string }[];
        const join = ops.find((x) => x.vaultID === vars.vault && x.kind === 'JOIN_VAULT');
        expect(join, `${step.say}: a JOIN_VAULT of the vault in ${JSON.stringify(ops)}`).toBeDefined();
        vars[name] = join?.operationID as string;
      } else vars[name] = String(pick(res.json, field));
    }
    if (step.path === '/status?withDetails=true') {
      // The samples' own parse of the release.
      release = Number.parseInt(/\d+\.\d+\.(\d+)\./.exec(String(res.json.version))?.[1] ?? 'NaN', 10);
      expect(release, `release in ${String(res.json.version)}`).toBeGreaterThan(0);
    }
    if (step.path.startsWith('/operations/sign/') && step.expect?.status === 'COMPLETED') {
      const v = res.json.v as number[];
      (res.json.signatures as string[]).forEach((sig, i) =>
        expectValidSignature(vars.key as string, (res.json.dataToSign as string[])[i] as string, sig, v[i] === 27 ? 1 : v[i] === 28 ? 0 : (v[i] as number)),
      );
      vars.rawTransactions = String((res.json.rawTransactions as string[]).length);
    }
    passed.push(step.say);
  }
  return { passed, vars, release };
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function harness(legacyRevision: '1.0.1811' | '1.0.1905', apiKey?: { clientId: string; key: string }) {
  const h = await startHarness({ legacyRevision, apiKey });
  cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
  return h;
}

describe('the vendor samples replayed against the emulator', () => {
  for (const revision of ['1.0.1811', '1.0.1905'] as const) {
    it(`ethereum/byow on ${revision}: single-address and BIP44 vaults, sign with rawTransactions from release 1812 on`, async () => {
      for (const hierarchy of ['NONE', 'BIP44'] as const) {
        const h = await harness(revision);
        const { passed, vars, release } = await replay(h, ethByow(hierarchy));
        expect(passed).toHaveLength(ethByow(hierarchy).length);
        expect(release).toBe(Number(revision.split('.')[2]));
        // What the sample sends depends on the release it read: 1811 drops rawTransactions.
        expect(vars.rawTransactions).toBe(revision === '1.0.1811' ? '0' : '1');
      }
    });

    it(`ethereum/byow MULTI_COIN on ${revision}: coins listed, a coin added as a string`, async () => {
      const h = await harness(revision);
      const { vars } = await replay(h, ethMultiCoin);
      const coins = (await h.call('GET', `/vaults/${vars.vault as string}/coins`, undefined, { base: 'legacy', token: h.token })).json;
      expect((pick(coins, 'items || coins') as number[]).sort((a, b) => a - b)).toEqual([0, 60]);
    });
  }

  it('bitcoin/byow on 1.0.1811: BIP44 vault, address key, two-input signature, coins as {coins}', async () => {
    const h = await harness('1.0.1811');
    const { passed } = await replay(h, btcByow);
    expect(passed).toHaveLength(btcByow.length);
  });

  it('ethereum/erc20 on 1.0.1905: API key, JOIN_VAULT awaited through its groups, default keys of both vaults, signatures', async () => {
    const key = randomBytes(24).toString('hex');
    const h = await harness('1.0.1905', { clientId: 'erc', key });
    // The client expects an account and an active participant to exist already.
    const account = (await h.api('POST', '/accounts', { name: 'CASP' })).json;
    const bot = (await h.api('POST', `/accounts/${account.id}/participants`, { name: 'casp-bot1', email: 'bot@example.com', role: 'Bot' })).json;
    await h.device('POST', `/participants/${bot.id}/activate`, { activationCode: bot.activationCode });
    const { passed } = await replay(h, erc20, { token: key, vars: { participant: bot.id }, includeRaw: true });
    expect(passed).toHaveLength(erc20.length);
  });

  it('answers 1.0.1811 keychain lists in that revision: {coins}, accounts as an array, addresses unpaged', async () => {
    const h = await harness('1.0.1811');
    const { vars } = await replay(h, [...byowStart, ...byowVault('hd', 'BIP44', 60, 'ETH_BYOW')]);
    const get = async (path: string) => (await h.call('GET', path, undefined, { base: 'legacy', token: h.token })).json;
    expect(await get(`/vaults/${vars.vault as string}/coins`)).toEqual({ coins: [60] });
    expect(await get(`/vaults/${vars.vault as string}/coins/60/accounts`)).toEqual([{ name: 'Default', index: 0 }]);
    expect(await get(`/vaults/${vars.vault as string}/coins/60/accounts/0/chains/external/addresses`)).toEqual({
      publicKeys: [expect.stringMatching(/^3056/)],
      accountName: 'Default',
      accountIndex: 0,
    });
    const ops = await get(`/accounts/${vars.account as string}/operations`);
    expect(ops).toEqual([expect.objectContaining({ kind: 'CREATE_VAULT', status: 'COMPLETED', vaultID: vars.vault })]);
    const status = await get('/status?withDetails=true');
    expect(status).toMatchObject({ version: expect.stringMatching(/^1\.0\.1811\.\d+$/), ukc: { healthy: true } });
  });
});
