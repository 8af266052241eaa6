/** What a finished run and a stalled sync raise, and the Notifier that sends it to webhooks once. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../../src/config/index.js';
import { notifyConfig } from '../../../src/config/notify.js';
import { alertsForRun, overdueAlert } from '../../../src/notify/alerts.js';
import { Notifier } from '../../../src/notify/notifier.js';
import { webhookBody } from '../../../src/notify/webhook.js';
import { clearSecrets, registerSecret } from '../../../src/sdk/redact.js';
import { emptyCounts } from '../../../src/state/index.js';
import type { RunEntry, StateStore } from '../../../src/state/index.js';

const counts = (read: number, failed: number) => ({ ...emptyCounts(), read, failed, created: read - failed });
const sync = (schedule?: string) => ({ name: 'crm-deals', ...(schedule ? { schedule } : {}) }) as LoadedConfig['syncs'][number];
const run = (status: RunEntry['status'], startedAt: string, finishedAt = startedAt): RunEntry => ({
  runId: `r-${startedAt}`, sync: 'crm-deals', status, startedAt, finishedAt, counts: counts(10, 0), durationMs: 1, error: status === 'failed' ? 'service unreachable' : null, cursor: null,
});

describe('alerts of a finished run', () => {
  const notify = notifyConfig.parse({ rejectedShareAbove: 0.1, consoleUrl: 'http://127.0.0.1:4310/' });

  it('a failed run raises run-failed with its error and where to look', () => {
    const [alert, ...rest] = alertsForRun(notify, { sync: 'crm-deals', runId: 'r1', status: 'failed', counts: counts(5, 0), error: 'FERRY_SERVICE_UNREACHABLE: connection refused' });
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({ kind: 'run-failed', sync: 'crm-deals', runId: 'r1', where: { url: 'http://127.0.0.1:4310/syncs/crm-deals/runs/r1', command: 'ferry status crm-deals --runs 5' } });
    expect(alert!.detail).toContain('connection refused');
  });

  it('a rejected share above the threshold raises rejected-share; at or below it nothing', () => {
    expect(alertsForRun(notify, { sync: 'crm-deals', runId: 'r1', status: 'partial', counts: counts(100, 11) }).map((a) => a.kind)).toEqual(['rejected-share']);
    expect(alertsForRun(notify, { sync: 'crm-deals', runId: 'r1', status: 'partial', counts: counts(100, 10) })).toEqual([]);
    expect(alertsForRun(notifyConfig.parse({ rejectedShareAbove: null }), { sync: 'crm-deals', runId: 'r1', status: 'partial', counts: counts(100, 90) })).toEqual([]);
  });
});

describe('a sync that has not succeeded within its expected interval', () => {
  const now = new Date('2026-12-01T12:00:00Z');

  it('with a schedule, is expected within twice its interval', () => {
    const hourly = sync('0 * * * *');
    expect(overdueAlert(notifyConfig.parse({}), hourly, [run('succeeded', '2026-12-01T10:30:00Z')], now)).toBeUndefined();
    const alert = overdueAlert(notifyConfig.parse({}), hourly, [run('failed', '2026-12-01T11:00:00Z'), run('succeeded', '2026-12-01T09:30:00Z')], now);
    expect(alert).toMatchObject({ kind: 'not-succeeded', sync: 'crm-deals', runId: 'r-2026-12-01T09:30:00Z' });
    expect(alert!.title).toContain('has not succeeded for 2.5 h');
    expect(alert!.detail).toContain('expected within 2 h');
    expect(alert!.detail).toContain('service unreachable');
  });

  it('notSucceededWithin overrides the schedule; a sync without either is not watched', () => {
    expect(overdueAlert(notifyConfig.parse({ notSucceededWithin: '30m' }), sync(), [run('succeeded', '2026-12-01T11:00:00Z')], now)?.kind).toBe('not-succeeded');
    expect(overdueAlert(notifyConfig.parse({}), sync(), [run('succeeded', '2026-11-01T11:00:00Z')], now)).toBeUndefined();
  });

  it('refuses a duration that is not one', () => {
    expect(notifyConfig.safeParse({ notSucceededWithin: 'soon' }).success).toBe(false);
  });
});

describe('Notifier', () => {
  const received: unknown[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => {
      received.push(JSON.parse(text));
      res.end();
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/abc-secret-path`;
  });
  afterAll(async () => {
    clearSecrets();
    await new Promise((ok) => server.close(ok));
  });

  it('sends each stall once (until the sync succeeds again), as plain JSON, with secrets masked', async () => {
    registerSecret('hunter2-password');
    const config = { syncs: [sync()], notify: notifyConfig.parse({ webhooks: [{ url, format: 'json' }], notSucceededWithin: '1h' }) } as unknown as LoadedConfig;
    let runs = [{ ...run('failed', '2026-12-01T10:00:00Z'), error: 'auth refused for hunter2-password' }, run('succeeded', '2026-12-01T08:00:00Z')];
    const store = { runs: async () => runs } as unknown as StateStore;
    const notifier = new Notifier(config, pino({ level: 'silent' }));
    const now = new Date('2026-12-01T12:00:00Z');
    expect((await notifier.checkOverdue(store, now)).length).toBe(1);
    expect((await notifier.checkOverdue(store, now)).length).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ source: 'ferry', kind: 'not-succeeded', sync: 'crm-deals' });
    expect(JSON.stringify(received[0])).toContain('auth refused for ***');
    runs = [run('succeeded', '2026-12-01T11:59:00Z')];
    expect((await notifier.checkOverdue(store, now)).length).toBe(0);
    runs = [run('succeeded', '2026-12-01T09:00:00Z')];
    expect((await notifier.checkOverdue(store, now)).length).toBe(1);
  });

  it("the Slack body carries text and blocks, and the webhook URL is a secret", () => {
    notifyConfig.parse({ webhooks: [{ url: 'https://hooks.slack.com/services/T1/B2/zzzsecretzzz' }] });
    const [alert] = alertsForRun(notifyConfig.parse({}), { sync: 's', runId: 'r', status: 'failed', counts: counts(1, 0), error: 'posting to https://hooks.slack.com/services/T1/B2/zzzsecretzzz failed' });
    const body = webhookBody(alert!, 'slack') as { text: string; blocks: unknown[] };
    expect(body.text).toContain('ferry: sync s failed');
    expect(body.blocks).toHaveLength(2);
    expect(JSON.stringify(body)).not.toContain('zzzsecretzzz');
  });
});
