import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/dev/free-port.js';
import { runSample } from './sample-process.js';

/** The preload alone, around small CommonJS programs standing in for a sample. */
describe('the vendor samples preload', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function program(source: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'vendor-preload-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'main.js'), source);
    return dir;
  }

  it('sends a mapped https URL to its http server, path and query kept, and refuses every other host', async () => {
    const seen: string[] = [];
    const port = await freePort();
    const server: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('local');
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const cwd = await program(`
      const https = require('https');
      const http = require('http');
      const get = (mod, url) => new Promise((resolve) => {
        const req = mod.request(url, (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => resolve('ok ' + b)); });
        req.on('error', (e) => resolve('error ' + e.message));
        req.end();
      });
      (async () => {
        console.log('mapped:', await get(https, 'https://localhost/casp/api/v1.0/mng/status?withDetails=true'));
        console.log('https other:', await get(https, 'https://example.com/'));
        console.log('http other:', await get(http, 'http://example.com/'));
      })();
    `);
    const run = runSample({ cwd, entry: 'main.js', routes: [['https://localhost', `http://127.0.0.1:${port}`]] });
    expect(await run.exited, run.lines.join('\n')).toBe(0);
    expect(seen).toEqual(['GET /casp/api/v1.0/mng/status?withDetails=true']);
    expect(run.lines).toContain('mapped: ok local');
    expect(run.lines).toContain('https other: error no network in tests: https://example.com/');
    expect(run.lines).toContain('http other: error no network in tests: http://example.com/');
  });

  it('answers prompts with scripted answers first, then defaults, and ends a run that would wait for a person', async () => {
    const cwd = await program(`
      const inquirer = require('inquirer');
      (async () => {
        const a = await inquirer.prompt([
          { name: 'user', default: 'so' },
          { name: 'password', type: 'password' },
          { name: 'kind', type: 'list', choices: [{ name: 'Single key', value: 'NONE' }, { name: 'BIP44', value: 'BIP44' }], default: 'BIP44' },
          { name: 'skipped', when: () => false },
        ]);
        console.log('answers:', JSON.stringify(a));
        await inquirer.prompt([{ name: 'to', message: 'To address:' }]);
        console.log('never');
      })();
    `);
    const run = runSample({
      cwd,
      entry: 'main.js',
      routes: [],
      answers: [
        ['password', 'secret'],
        ['kind', 'Single key'],
      ],
    });
    expect(await run.exited).toBe(70);
    expect(run.lines).toContain('answers: {"user":"so","password":"secret","kind":"NONE"}');
    expect(run.lines).toContain('[prompt] "to" (To address:) has no default and no scripted answer');
    expect(run.lines).not.toContain('never');
  });

  it('ends a run that asks the same question again and again', async () => {
    const cwd = await program(`
      const inquirer = require('inquirer');
      (async () => { for (;;) await inquirer.prompt([{ name: 'url', default: 'https://localhost' }]); })();
    `);
    const run = runSample({ cwd, entry: 'main.js', routes: [] });
    expect(await run.exited).toBe(71);
    expect(run.lines.filter((l) => l.startsWith('[prompt] url = '))).toHaveLength(3);
  });
});
