/**
 * The console's server in-process, without a browser: the access token, the
 * CSRF header, a reset that must be confirmed, and no secret of the config
 * (a `${VAR}` value) in any answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../../src/console/server.js';
import type { RunningConsole } from '../../../src/console/server.js';

const ACCOUNTS = resolve(import.meta.dirname, '../../../../shared/datasets/crm-sales-opportunities/accounts.csv');
const SECRET = 'pa55-w0rd-from-the-environment';
const TOKEN = 'console-token-0123456789abcdef';

describe('ferry console server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-console-api-'));
  let running: RunningConsole;
  let base: string;

  beforeAll(async () => {
    process.env.CONSOLE_TEST_SECRET = SECRET;
    writeFileSync(join(dir, 'ferry.yaml'), [
      'version: 1',
      'emulator: { db: ":memory:" }',
      'syncs:',
      '  - name: accounts',
      '    source:',
      '      type: csv',
      `      path: ${ACCOUNTS}`,
      '      primaryKey: account',
      '    target:',
      '      type: row',
      '      source: { name: crm, displayName: CRM }',
      '      objectType: { name: account, displayName: Account }',
      // A secret that reaches record content (here through the mapping) is masked there too.
      `      map: { id: account, public: true, name: "account & ' \${CONSOLE_TEST_SECRET}'", fields: { sector: sector } }`,
      '',
    ].join('\n'));
    running = await startConsole({ configFile: join(dir, 'ferry.yaml'), port: 0, token: TOKEN, logger: pino({ level: 'silent' }) });
    base = `http://127.0.0.1:${running.port}`;
  });
  afterAll(async () => {
    await running?.close();
    delete process.env.CONSOLE_TEST_SECRET;
    rmSync(dir, { recursive: true, force: true });
  });

  const auth = { authorization: `Bearer ${TOKEN}` };

  it('prints an address that carries the token, and refuses requests without it', async () => {
    expect(running.url).toBe(`${base}/?access=${TOKEN}`);
    expect((await fetch(`${base}/api/overview`)).status).toBe(401);
    expect((await fetch(`${base}/api/overview`, { headers: auth })).status).toBe(200);
    // The first page load trades the token for a cookie and drops it from the address.
    const first = await fetch(`${base}/failures?access=${TOKEN}`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/failures');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const page = await fetch(`${base}/failures`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses an action with the cookie alone, or from another origin', async () => {
    const cookie = `ferry_console=${TOKEN}`;
    const body = JSON.stringify({ sync: 'accounts', confirm: 'accounts' });
    const json = { 'content-type': 'application/json' };
    expect((await fetch(`${base}/api/state/reset`, { method: 'POST', headers: { ...json, cookie }, body })).status).toBe(403);
    const { csrfToken } = (await (await fetch(`${base}/api/session`, { headers: auth })).json()) as { csrfToken: string };
    expect((await fetch(`${base}/api/state/reset`, { method: 'POST', headers: { ...json, cookie, 'x-ferry-csrf': csrfToken, origin: 'https://evil.example' }, body })).status).toBe(403);
    const ok = await fetch(`${base}/api/state/reset`, { method: 'POST', headers: { ...json, cookie, 'x-ferry-csrf': csrfToken, origin: base }, body });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('a reset must name the sync it resets', async () => {
    const answer = await fetch(`${base}/api/state/reset`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ sync: 'accounts' }) });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain('"confirm": "accounts"');
  });

  it('shows no secret of the config in its answers (a ${VAR} value, masked)', async () => {
    const preview = await (await fetch(`${base}/api/config/preview/accounts?n=1`, { headers: auth })).text();
    expect(preview).toContain('Acme Corporation ***');
    expect(preview).not.toContain(SECRET);
    for (const path of ['/api/session', '/api/config', '/api/overview', '/api/state']) {
      const text = await (await fetch(`${base}${path}`, { headers: auth })).text();
      expect(text, path).not.toContain(SECRET);
    }
  });

  it('answers the service read side with the spec filters, and refuses a filter it does not have', async () => {
    const bad = await fetch(`${base}/api/data/rows?colour=red`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('no filter colour');
    const sources = (await (await fetch(`${base}/api/data/sources`, { headers: auth })).json()) as { sources: unknown[] };
    expect(Array.isArray(sources.sources)).toBe(true);
  });
});
