/**
 * `ferry console` in a real browser (Debian's chromium through
 * playwright-core) against the demo project's CRM and meeting pipelines,
 * copied to a temporary folder: the pages show what `ferry status --json`
 * shows, a dead-lettered record is retried from the page once its mapping is
 * fixed, a reset asks first, a run started from the page moves while it runs,
 * and a run's alert reaches a local webhook receiver.
 *
 * FERRY_CONSOLE_SCREENSHOTS=docs/console also writes a screenshot of each page.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.FERRY_CONSOLE_SCREENSHOTS ? resolve(ROOT, process.env.FERRY_CONSOLE_SCREENSHOTS) : undefined;

interface Status {
  syncs: { sync: string; lastRun: { counts: Record<string, number> } | null; openFailures: number; liveRecords: number }[];
}

describe.skipIf(!existsSync(CHROMIUM))('ferry console in a browser', () => {
  const top = tempProjectDir('ferry-console-');
  const dir = join(top, 'demo');
  const crmFile = join(dir, 'pipelines', 'crm.yaml');
  const received: { path: string; body: unknown }[] = [];
  let receiver: Server;
  let consoleProcess: ChildProcess;
  let baseUrl: string;
  let browser: BrowserContext;
  let page: Page;

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  let hook = '';
  const status = async () => jsonOf(await ferry(['status', '--json'], { cwd: dir, env: { ALERT_HOOK: hook } })) as Status;

  beforeAll(async () => {
    // The demo's pipelines read ../../shared/datasets: the copy sits where that resolves.
    symlinkSync(resolve(ROOT, '../shared'), join(top, 'shared'));
    mkdirSync(join(dir, 'pipelines'), { recursive: true });
    for (const file of ['crm.yaml', 'meetings.yaml']) cpSync(join(ROOT, 'pipelines', file), join(dir, 'pipelines', file));
    receiver = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text) as unknown });
        res.end('ok');
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/services/T0/B0/s3cr3t-hook-path`;
    writeFileSync(
      join(dir, 'ferry.yaml'),
      readFileSync(join(ROOT, 'ferry.yaml'), 'utf8') + `notify:\n  webhooks:\n    - url: \${ALERT_HOOK}\n      format: slack\n  rejectedShareAbove: 0\n`,
    );
    // One account (of 85) is refused: employees must be an int.
    writeFileSync(crmFile, readFileSync(crmFile, 'utf8').replace('employees: employees', `employees: "account = 'Acme Corporation' ? 'many' : employees"`));
    const first = await ferry(['run', 'crm-accounts', 'harper-valley-calls'], { cwd: dir, env: { ALERT_HOOK: hook } });
    expect(first.code, first.stderr).toBe(2);

    consoleProcess = spawn(process.execPath, [join(ROOT, 'bin/ferry.js'), 'console', '--port', '0'], { cwd: dir, env: { ...process.env, ALERT_HOOK: hook, FERRY_BASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    baseUrl = await new Promise<string>((ok, fail) => {
      let out = '';
      consoleProcess.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const url = /^(http:\/\/\S+)$/m.exec(out)?.[1];
        if (url) ok(url.replace(/\/$/, ''));
      });
      consoleProcess.once('exit', (code) => fail(new Error(`ferry console exited with ${code}`)));
    });
    const { chromium } = await import('playwright-core');
    // A fresh profile in the test's folder: nothing of another run (or of a user) is reused.
    browser = await chromium.launchPersistentContext(join(top, 'chromium'), {
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1366, height: 850 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    consoleProcess?.kill('SIGTERM');
    await new Promise((ok) => (consoleProcess && consoleProcess.exitCode === null ? consoleProcess.once('exit', ok) : ok(undefined)));
    await new Promise((ok) => receiver?.close(ok));
    rmSync(top, { recursive: true, force: true });
  });

  it("the run's alert reached the local webhook, Slack-shaped, without the hook's secret path", () => {
    const alert = received.find((r) => JSON.stringify(r.body).includes('crm-accounts'));
    expect(alert, JSON.stringify(received)).toBeDefined();
    expect(alert!.path).toBe('/services/T0/B0/s3cr3t-hook-path');
    const body = alert!.body as { text: string; blocks: unknown[] };
    expect(body.text).toContain('sync crm-accounts rejected');
    expect(body.text).toContain('1 of 85');
    expect(body.blocks.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain('s3cr3t-hook-path');
  });

  it('the overview shows the counts `ferry status --json` shows', async () => {
    await page.goto(`${baseUrl}/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const expected = await status();
    for (const s of expected.syncs) {
      for (const [count, value] of Object.entries({ ...(s.lastRun?.counts ?? {}), openFailures: s.openFailures, liveRecords: s.liveRecords })) {
        if (count === 'pushed') continue;
        const cell = page.locator(`main [data-sync="${s.sync}"][data-count="${count}"]`).first();
        expect(await cell.textContent(), `${s.sync} ${count}`).toBe(value.toLocaleString('en-US'));
      }
    }
    await shot('overview');
  });

  it('a dead-lettered record, once its mapping is fixed, is retried from the page and lands', async () => {
    await page.getByRole('link', { name: 'Dead-letter' }).click();
    await page.getByRole('heading', { name: 'Dead-letter' }).waitFor();
    await page.getByLabel('Remote id contains').fill('Acme');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/remoteId=Acme/);
    const row = page.getByRole('link', { name: /^\d+$/ }).first();
    await row.waitFor();
    await shot('dead-letter');
    await row.click();
    await page.getByRole('heading', { name: /Dead-letter entry/ }).waitFor();
    await expect.poll(() => page.locator('section', { hasText: 'Source record' }).textContent()).toContain('Acme Corporation');
    expect(await page.locator('section', { hasText: 'Request body' }).textContent()).toContain('Acme Corporation');
    expect(await page.locator('section', { hasText: "Service's answer" }).textContent()).not.toBe('');
    await shot('dead-letter-entry');

    writeFileSync(crmFile, readFileSync(crmFile, 'utf8').replace(`employees: "account = 'Acme Corporation' ? 'many' : employees"`, 'employees: employees'));
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    await page.locator('main .notice', { hasText: 'crm-accounts: 1 landed, 0 rejected again' }).waitFor();
    const after = (await status()).syncs.find((s) => s.sync === 'crm-accounts')!;
    expect(after.openFailures).toBe(0);
    expect(after.liveRecords).toBe(85);
    // Back goes to the entry's address, which is gone now.
    await page.goBack();
    await page.getByText(/no dead-letter entry/).waitFor();
  });

  it('a reset asks for confirmation, and does nothing when cancelled', async () => {
    await page.goto(`${baseUrl}/state`);
    await page.getByRole('heading', { name: 'State' }).waitFor();
    await page.getByRole('button', { name: 'Reset harper-valley-calls' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset harper-valley-calls?' });
    await dialog.waitFor();
    await shot('state-reset-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await status()).syncs.find((s) => s.sync === 'harper-valley-calls')!.liveRecords).toBe(6);

    await page.getByRole('button', { name: 'Reset harper-valley-calls' }).click();
    expect(await dialog.getByRole('button', { name: 'Reset' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Type harper-valley-calls to confirm').fill('harper-valley-calls');
    await dialog.getByRole('button', { name: 'Reset' }).click();
    await page.locator('main .notice', { hasText: 'Reset harper-valley-calls: cursor, ledger and failures.' }).waitFor();
    expect(await page.locator('[data-sync="harper-valley-calls"][data-count="liveRecords"]').textContent()).toBe('0');
    expect((await status()).syncs.find((s) => s.sync === 'harper-valley-calls')!.liveRecords).toBe(0);
    await shot('state');
  });

  it('a run started from the page shows its progress while it runs', async () => {
    await page.goto(`${baseUrl}/`);
    await page.getByRole('button', { name: 'Run crm-deals' }).click();
    await page.waitForURL(/\/syncs\/crm-deals\/runs\//);
    await page.locator('#run-status', { hasText: 'running' }).waitFor();
    const read = page.locator('#run-counts [data-count="read"]');
    const seen = new Set<string>();
    // The read count moves without reloading the page: at least two values below the total while running.
    await expect
      .poll(async () => {
        const text = (await read.textContent()) ?? '';
        if ((await page.locator('#run-status').textContent()) === 'running') seen.add(text);
        return seen.size;
      }, { timeout: 60_000, interval: 100 })
      .toBeGreaterThanOrEqual(2);
    await shot('run-live');
    expect(Number((await read.textContent())!.replace(/,/g, ''))).toBeLessThanOrEqual(8800);
    // Waiting for the end of 8,800 records is worth it only for the screenshots; the console's stop ends the run.
    if (!SHOTS) return;
    await page.locator('#run-status', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    expect(await read.textContent()).toBe('8,800');
    await shot('run');
    await page.getByRole('link', { name: 'All runs of crm-deals' }).click();
    await page.getByRole('heading', { name: 'Sync crm-deals' }).waitFor();
    // crm-accounts has two runs by now (the first and the retry): its chart has a line.
    await page.goto(`${baseUrl}/syncs/crm-accounts`);
    await page.locator('.chart canvas').first().waitFor();
    await shot('sync');
  }, 90_000);

  it('shows the data that landed, the config with ferry check, a preview, and alerts; each at its own address', async () => {
    await page.goto(`${baseUrl}/data/rows?limit=5`);
    await page.getByRole('heading', { name: 'Data: rows' }).waitFor();
    await page.getByRole('link', { name: 'Next page' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(5);
    await shot('data');
    await page.goto(`${baseUrl}/config`);
    await page.getByText('all checks passed').waitFor();
    await shot('config');
    await page.getByRole('link', { name: 'Preview crm-accounts' }).click();
    await page.getByRole('heading', { name: 'Preview of crm-accounts' }).waitFor();
    await page.getByText('Request body').first().waitFor();
    await shot('preview');
    await page.goBack();
    await page.getByRole('heading', { name: 'Config' }).waitFor();
    await page.goto(`${baseUrl}/alerts`);
    await page.getByText('http://127.0.0.1').first().waitFor();
    expect(await page.content()).not.toContain('s3cr3t-hook-path');
    await shot('alerts');
    for (const path of ['/api/session', '/api/config', '/api/overview', '/api/failures']) {
      const text = await (await fetch(`${baseUrl}${path}`)).text();
      expect(text, path).not.toContain('s3cr3t-hook-path');
    }
  });
});
