import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { json, Processes } from '../deploy/processes.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

/**
 * The README's sandbox walk-through, its shell block run with bash as written against `npm start`
 * (`tsx src/main.ts` with nothing configured). What differs from a user's terminal: the API and
 * custody emulator ports (free ones instead of 8080 and 8090), a fresh Redis prefix, and the
 * working directory, a temporary folder that holds the sandbox's `.sandbox/` files (the block
 * reads `.sandbox/api-key` and `.sandbox/custody-password` from there, as from the project folder).
 * Every step's output is checked against what the walk-through says it shows.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const README = join(ROOT, 'README.md');

/** The first ```sh block under "### Walk-through". */
function walkThroughBlock(markdown: string): string {
  const section = markdown.split(/^### Walk-through$/m)[1];
  const block = section === undefined ? undefined : /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error('README.md: no ```sh block under "### Walk-through"');
  return block;
}

/** Splits `bash -v` output (each script line echoed as read, then what it printed) at the `# N.` step comments. */
function steps(transcript: string): Map<string, string> {
  const out = new Map<string, string>();
  let name = '0';
  for (const line of transcript.split('\n')) {
    const m = /^# (\d+)\. /.exec(line);
    if (m) name = m[1]!;
    out.set(name, `${out.get(name) ?? ''}${line}\n`);
  }
  return out;
}

/** The lines a step printed that are neither echoed script lines nor blank: its output. */
function printed(step: string, script: string): string[] {
  const source = new Set(script.split('\n'));
  return step.split('\n').filter((l) => l.trim() !== '' && !source.has(l));
}

describe('the README sandbox walk-through, run with bash against npm start', { timeout: 300_000 }, () => {
  const procs = new Processes();
  const dir = mkdtempSync(join(tmpdir(), 'byow-walk-through-'));
  const redisUrl = inject('redisUrl');
  const prefix = `test-walk-through-${randomUUID()}`;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  let port: number;
  let custodyPort: number;

  /** `npm start` is `tsx src/main.ts`; in its own process group, for tsx runs the service in a child. */
  const startSandbox = async (name: string) => {
    procs.start(
      name,
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/main.ts')],
      {
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        PORT: String(port),
        SANDBOX_CUSTODY_PORT: String(custodyPort),
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
      },
      { cwd: dir, group: true },
    );
    await procs.until(
      'the sandbox healthy',
      [name],
      async () => {
        const res = await json(`http://127.0.0.1:${port}/api/v1.0/status`);
        return res.body?.healthy === true ? true : undefined;
      },
      180_000,
    );
  };

  beforeAll(async () => {
    [port, custodyPort] = [await freePort(), await freePort()];
    await startSandbox('sandbox');
  }, 200_000);

  afterAll(async () => {
    await procs.stopAll();
    rmSync(dir, { recursive: true, force: true });
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  /** Runs the block with bash and checks every step's output against what the walk-through says. */
  async function walkThrough(): Promise<void> {
    const script = walkThroughBlock(readFileSync(README, 'utf8'))
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      .replaceAll('127.0.0.1:8090', `127.0.0.1:${custodyPort}`);
    expect(script).not.toMatch(/:80[89]0\b/);
    // No step waits a fixed time before reading a result (a loaded machine would read it too early): only wait_for sleeps, between its reads.
    expect(script.split('\n').filter((l) => /\bsleep\b/.test(l) && !l.startsWith('wait_for() {'))).toEqual([]);
    const file = join(dir, 'walk-through.sh');
    writeFileSync(file, script);
    // One file for both streams keeps the echoed lines and their output in order.
    const outFile = join(dir, 'walk-through.out');
    const fd = openSync(outFile, 'w');
    const started = Date.now();
    const code = await new Promise<number | null>((done) => {
      const child = spawn('bash', ['-v', file], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['ignore', fd, fd] });
      child.once('exit', (c) => done(c));
    });
    closeSync(fd);
    const transcript = readFileSync(outFile, 'utf8');
    const why = `the walk-through printed (in ${Date.now() - started} ms):\n${transcript}\n--- the sandbox:\n${procs.output.join('').slice(-4000)}`;
    expect(code, why).toBe(0);
    // Nothing failed on the way: no error answer, and every `field` read its JSON.
    expect(transcript.match(/"errCode":"\w+"/g), why).toBeNull();
    expect(transcript, why).not.toMatch(/SyntaxError|TypeError|command not found|^undefined$/m);
    const by = steps(transcript);
    const out = (n: string) => printed(by.get(n) ?? '', script);
    // The JSON answers curl printed (`field` prints objects as node's inspect, which is not JSON).
    const jsonLines = (n: string) => out(n).flatMap((l) => (/^\{"/.test(l) ? [JSON.parse(l) as Record<string, any>] : []));

    // Before step 1: /config and /status.
    const [config, status] = jsonLines('0');
    expect(
      (config?.ledgers as { ledgerId: string }[] | undefined)?.map((l) => l.ledgerId),
      why,
    ).toEqual(['ethdev', 'btcregtest', 'stellardev', 'solanadev']);
    expect(status, why).toMatchObject({ healthy: true });

    // 1. A vault, created at the emulator and registered here.
    expect(jsonLines('1')[0], why).toMatchObject({ vaultId: expect.any(String), ledgerId: 'ethdev', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });

    // 2. Funded: 10 ETH and 500 DEMO.
    const funded = jsonLines('2').at(-1);
    expect(funded?.balances, why).toEqual(expect.arrayContaining([{ asset: 'ETH', amount: '10' }, expect.objectContaining({ asset: 'DEMO', amount: '500' })]));

    // 3. Both withdrawals CONFIRMED; one callback delivered; the recipient holds 1.25 ETH and 12.5 DEMO.
    const three = out('3');
    expect(three.slice(0, 2), why).toEqual(['CONFIRMED', 'CONFIRMED']);
    expect(three[2], why).toBe('1');
    const recipient = jsonLines('3').find((j) => Array.isArray(j.balances));
    expect(recipient?.balances, why).toEqual([
      { asset: 'ETH', amount: '1.25' },
      { asset: 'DEMO', amount: '12.5' },
    ]);
    expect(
      jsonLines('3').find((j) => 'ledger' in j),
      why,
    ).toMatchObject({ ledger: { healthy: true }, custody: { healthy: true } });
    expect(jsonLines('3').at(-1), why).toEqual({ items: [{ address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' }] });

    // 4. Bitcoin: CONFIRMED.
    expect(out('4'), why).toContain('CONFIRMED');
    expect(jsonLines('4').at(-1)?.balances?.[0]?.amount, why).toMatch(/^47\.49\d*$/); // 50 less 2.5 and the fee

    // 5. Stellar: CONFIRMED, the new account holds 2.5 XLM.
    expect(out('5'), why).toContain('CONFIRMED');
    expect(jsonLines('5').at(-1)?.balances, why).toEqual([{ asset: 'XLM', amount: '2.5' }]);

    // 6. Solana: the first withdrawal answers with the nonce-account setup it waits for, then both withdrawals CONFIRMED.
    const six = out('6');
    expect(six, why).toEqual(expect.arrayContaining(['nonce-account', 'waiting']));
    expect(
      six.filter((l) => l === 'CONFIRMED'),
      why,
    ).toHaveLength(2);

    // 7. The dashboard's queues.
    expect(out('7').join('\n'), why).toContain('"queues"');

    // 8. Mining paused: both withdrawals stay BROADCAST, then so do their replacements; resumed: the speed-up confirmed, the cancel landed.
    expect(jsonLines('8')[0], why).toMatchObject({ ledgerId: 'ethdev', action: 'pause', paused: true, actions: ['pause', 'resume', 'mine', 'reorg'] });
    expect(jsonLines('8')[1], why).toMatchObject({ ledgerId: 'ethdev', action: 'resume', paused: false });
    expect(
      out('8').filter((l) => !l.startsWith('{')),
      why,
    ).toEqual([
      'BROADCAST',
      'BROADCAST',
      'BROADCAST',
      'BROADCAST',
      'original broadcast, speed-up broadcast',
      'original broadcast, cancel broadcast',
      'CONFIRMED',
      'original replaced, speed-up confirmed',
      'FAILED',
      expect.stringMatching(/^cancelled: /),
    ]);

    // 9. Deposits: the faucet's two payments of step 2, CONFIRMED; the vault's own cancel of step 8 is none.
    //    Solana: step 6's faucet SOL and USDC; the vault's nonce setup and its withdrawals are none.
    expect(out('9'), why).toEqual(['10 ETH, 500 DEMO', '100 USDC, 2 SOL']);

    // 10. A payment in a block that a reorganisation replaced: DETECTED at 1 of 2 blocks, then REVERTED, each told to the sink in order.
    const ten = out('10');
    expect(ten[0], why).toContain('deposit.reverted');
    expect(ten.slice(1, 3), why).toEqual(['true', expect.stringMatching(/^0x[0-9a-f]{64}$/)]);
    expect(ten.slice(4), why).toEqual(['1 ETH, 1 of 2', expect.stringMatching(/^\d+$/), '1 ETH', 'deposit.detected, deposit.reverted', 'false']);
  }

  it('reaches what each step says', walkThrough);

  // Each start begins with empty nodes and empty sandbox data: the same block runs again as
  // written (step 5 pays the same new Stellar account, which exists no more).
  it('reaches what each step says again after a restart on the same Redis prefix', async () => {
    await procs.stopAll();
    await startSandbox('sandbox again');
    await walkThrough();
  }, 500_000);
});
