import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastJobId } from '../../src/withdrawals/jobs/queues.js';
import { startBrowser, type TestBrowser } from '../helpers/browser.js';
import { ADMIN_KEY } from '../helpers/service.js';
import { RECIPIENT, startEthLoop, withdraw, type EthLoop } from '../pipeline/support.js';

/** Outside the repository: what the page looked like, for a person to check. */
const SCREENSHOT = join(tmpdir(), 'byow-dashboard-job.png');
const SCREENSHOT_LOGS = join(tmpdir(), 'byow-dashboard-job-logs.png');

describe('job dashboard in a real browser (headless Chromium)', () => {
  let eth: EthLoop;
  let browser: TestBrowser;

  beforeAll(async () => {
    eth = await startEthLoop();
    browser = await startBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await eth?.stop();
  });

  it('logs in, finds a confirmed withdrawal by amount and ledger, and is refused a write while read-only', async () => {
    const v = await eth.loop.vault('ethdev');
    await eth.chain.funder.sendEth(v.address, 10n ** 18n);
    const res = await withdraw(eth.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.0427', description: 'seen in the browser' });
    const done = await eth.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    const op = await eth.loop.svc.pipeline!.deps.store.resolve(done.operationID);
    const base = eth.loop.svc.url;
    const page = await browser.context.newPage();

    // Not logged in: the dashboard sends the browser to its login form.
    await page.goto(`${base}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/admin/queues/login');
    await page.fill('#key', 'not-the-key-not-the-key');
    await page.click('button[type=submit]');
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('not an API key with the admin scope');
    await page.fill('#key', ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/admin/queues/`);
    const session = (await browser.context.cookies(`${base}/admin/queues/`)).find((c) => c.name === 'byow_dashboard');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin/queues' });
    expect(await page.evaluate('document.cookie')).toBe(''); // HttpOnly: no script sees it

    // The completed broadcast job, found by what an operator knows: amount and ledger.
    await page.goto(`${base}/admin/queues/queue/broadcast?status=completed`);
    const title = page.getByText(/^broadcast · ethdev · 0\.0427 ETH → /);
    await title.waitFor({ timeout: 30_000 });
    // Named by the withdrawalId; the custody operationID is shown beside it.
    expect(await title.innerText()).toContain(`CONFIRMED · ${done.withdrawalId}`);
    const card = page.locator('body');
    for (const shown of [
      done.withdrawalId,
      done.operationID,
      v.vaultId,
      RECIPIENT,
      done.txids[0],
      `/api/v1.0/vaults/${v.vaultId}/withdrawals/${done.withdrawalId}`,
    ]) {
      await expect.poll(() => card.innerText()).toContain(shown);
    }
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);

    await page.getByText('Logs', { exact: true }).click();
    await expect.poll(() => card.innerText()).toContain(`sent ${done.txids[0]}; the node answered: accepted`);
    await page.screenshot({ path: SCREENSHOT_LOGS, fullPage: true });

    // Read-only: no write controls, and the page's own API refuses a write made with its session.
    expect(await page.getByRole('button', { name: /retry|clean|remove|promote|delete|empty/i }).count()).toBe(0);
    const jobId = broadcastJobId(op!.id);
    const refused = await page.evaluate(
      async (id) =>
        Promise.all(
          [`/admin/queues/api/queues/broadcast/${id}/retry`, '/admin/queues/api/queues/broadcast/clean/completed'].map(
            async (u) => (await fetch(u, { method: 'PUT' })).status,
          ),
        ),
      jobId,
    );
    expect(refused).toEqual([405, 405]);
    expect(await (await eth.loop.svc.pipeline!.deps.queues.broadcast.getJob(jobId))?.isCompleted()).toBe(true);

    // Logging out ends the session everywhere: the form is back, and the old cookie opens nothing.
    await page.locator('header li').last().locator('button').click();
    await page.getByText('Log out', { exact: true }).click();
    await page.waitForURL(`${base}/admin/queues/login`);
    await page.goto(`${base}/admin/queues/queue/broadcast`);
    expect(new URL(page.url()).pathname).toBe('/admin/queues/login');
    const old = await eth.loop.svc.call('GET', '/admin/queues/api/queues', { headers: { cookie: `byow_dashboard=${session!.value}` } });
    expect(old.status).toBe(401);
  });
});
