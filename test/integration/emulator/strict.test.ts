/**
 * The emulator is as strict as the spec, and takes the stricter reading where
 * the spec is silent (issue 13), so code that passes against it passes against
 * the service. Every case over real HTTP.
 */
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../../src/api/schemas/common.js';
import { conversation, createSource, documentBody, message, row, startApi, T0, type Api } from './helpers.js';

describe('emulator: strict where the spec is strict', () => {
  let api: Api;
  let sourceId: string;
  let typeId: string;
  beforeAll(async () => {
    api = await startApi();
    sourceId = await createSource(api);
    const type = await api.post('/v1/object-types', {
      sourceId,
      name: 'meeting',
      displayName: 'Meeting',
      fieldDefinitions: [
        { name: 'amount', fieldType: 'double', required: true },
        { name: 'stage', fieldType: 'string' },
        { name: 'heldAt', fieldType: 'datetime' },
        { name: 'day', fieldType: 'date' },
      ],
    });
    typeId = type.body.id;
  });
  afterAll(() => api.emulator.close());

  const expect400 = (res: { status: number; body: { detail: { error: string; field: string | null } } }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.detail).toMatchObject({ error: 'validation_error', field });
  };

  it('refuses a date-only value in a datetime row field, on POST and PATCH', async () => {
    const datetime = (value: unknown) => ({ amount: { value: 1, fieldType: 'double' }, heldAt: { value, fieldType: 'datetime' } });
    expect400(await api.post('/v1/rows', row(sourceId, typeId, 'dt-1', { fields: datetime('2024-06-10') })), 'fields.heldAt.value');
    expect((await api.post('/v1/rows', row(sourceId, typeId, 'dt-1', { fields: datetime('2024-06-10T09:30:00Z') }))).status).toBe(201);
    const patch = await api.patch(`/v1/rows?remoteId=dt-1&sourceId=${sourceId}`, { fields: { heldAt: { value: '2024-06-10', fieldType: 'datetime' } } });
    expect400(patch, 'fields.heldAt.value');
    // A date field still takes the date.
    const day = await api.patch(`/v1/rows?remoteId=dt-1&sourceId=${sourceId}`, { fields: { day: { value: '2024-06-10', fieldType: 'date' } } });
    expect(day.status).toBe(200);
  });

  it('answers 422 to a sourceId filter that is neither a UUID nor a native string of that resource', async () => {
    const cases: [string, string, string][] = [
      ['/v1/rows', 'gong', sourceId],
      ['/v1/conversations', 'gmail', 'gong'],
      ['/v1/messages', 'gong', 'gmail'],
      ['/v1/documents', 'gong', 'chat_upload'],
    ];
    for (const [path, bad, good] of cases) {
      const refused = await api.get(`${path}?sourceId=${bad}`);
      expect(refused.status, path).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['query', 'sourceId']);
      expect(refused.body.detail[0].msg).toContain(`found "${bad}"`);
      expect((await api.get(`${path}?sourceId=${good}`)).status, path).toBe(200);
    }
  });

  it('refuses null where the spec does not allow it', async () => {
    expect400(await api.post('/v1/conversations', conversation(sourceId, 'n-1', { displayName: null })), 'displayName');
    expect400(await api.post('/v1/messages', message(sourceId, 'n-2', { displayName: null })), 'displayName');
    expect400(await api.post('/v1/rows', row(sourceId, typeId, 'n-3', { createdAt: null })), 'createdAt');
    expect400(await api.post('/v1/documents', documentBody(sourceId, 'n-4', { createdAt: null })), 'createdAt');
    expect400(await api.post('/v1/documents', documentBody(sourceId, 'n-5', { contentType: null })), 'contentType');
  });

  it('requires absolute http(s) URLs where the spec says "fetchable URL"', async () => {
    const byUrl = (url: string) => documentBody(sourceId, 'u-1', { content: undefined, filename: undefined, url });
    expect400(await api.post('/v1/documents', byUrl('plan.pdf')), 'url');
    expect400(await api.post('/v1/documents', byUrl('ftp://files.example/plan.pdf')), 'url');
    expect((await api.post('/v1/documents', byUrl('https://files.example/plan.pdf'))).status).toBe(201);
    expect400(await api.patch(`/v1/documents?remoteId=u-1&sourceId=${sourceId}`, { url: 'javascript:alert(1)' }), 'url');
    const attachment = { name: 'y.pdf', url: '/x/y.pdf' };
    expect400(await api.post('/v1/messages', message(sourceId, 'u-2', { attachments: [attachment] })), 'attachments.0.url');
    expect400(await api.post('/v1/conversations', conversation(sourceId, 'u-3', { recordingUrl: 'not a url' })), 'recordingUrl');
  });

  it('cuts bodyPreview at characters, never inside a surrogate pair', async () => {
    const body = `${'a'.repeat(199)}😀${'b'.repeat(50)}`;
    const created = await api.post('/v1/messages', message(sourceId, 'emoji', { body }));
    const res = await fetch(`${api.emulator.url}/v1/messages/${created.body.recordId}`, { headers: { authorization: `Bearer ${api.key}` } });
    const raw = Buffer.from(await res.arrayBuffer());
    // Valid UTF-8 all the way: a lone surrogate would come back as U+FFFD or an escape.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    expect(text).not.toMatch(/\\ud83d"/i);
    const preview: string = JSON.parse(text).bodyPreview;
    expect([...preview]).toHaveLength(200);
    expect(preview.endsWith('😀')).toBe(true);
  });
});

describe('emulator: the stricter reading where the spec is silent', () => {
  let api: Api;
  let sourceId: string;
  beforeAll(async () => {
    api = await startApi();
    sourceId = await createSource(api);
  });
  afterAll(() => api.emulator.close());

  it('refuses a timestamp given as a digit string (not ISO 8601); the number itself is fine', async () => {
    const refused = await api.post('/v1/messages', message(sourceId, 'ts-1', { createdAt: String(T0) }));
    expect(refused.status).toBe(400);
    expect(refused.body.detail.field).toBe('createdAt');
    expect(refused.body.detail.message).toContain('not a digit string');
    const sentence = { speakerName: 'Ann', text: 'hi', timestamp: String(T0 / 1000 + 5) };
    const badSentence = await api.post('/v1/conversations', conversation(sourceId, 'ts-2', { transcript: [sentence] }));
    expect(badSentence.body.detail.field).toBe('transcript.0.timestamp');
    expect((await api.post('/v1/messages', message(sourceId, 'ts-1', { createdAt: T0 }))).status).toBe(201);
  });

  it('refuses empty content and a contentType that is not a MIME type', async () => {
    const empty = await api.post('/v1/documents', documentBody(sourceId, 'c-1', { content: '' }));
    expect(empty.status).toBe(400);
    expect(empty.body.detail.field).toBe('content');
    const mime = await api.post('/v1/documents', documentBody(sourceId, 'c-1', { contentType: 'pdf' }));
    expect(mime.body.detail.field).toBe('contentType');
    expect((await api.post('/v1/documents', documentBody(sourceId, 'c-1', { contentType: 'text/plain; charset=utf-8' }))).status).toBe(201);
    const patch = await api.patch(`/v1/documents?remoteId=c-1&sourceId=${sourceId}`, { content: '' });
    expect(patch.body.detail.field).toBe('content');
  });

  it('answers 400 to a PATCH of what cannot change (a document author, a source name)', async () => {
    await api.post('/v1/documents', documentBody(sourceId, 'a-1', { author: { email: 'ann@acme.com' } }));
    const author = await api.patch(`/v1/documents?remoteId=a-1&sourceId=${sourceId}`, { displayName: 'x', author: { email: 'bob@acme.com' } });
    expect(author.status).toBe(400);
    expect(author.body.detail).toMatchObject({ error: 'validation_error', field: 'author' });
    expect(author.body.detail.message).toContain('cannot be changed by PATCH');
    const name = await api.patch(`/v1/sources/${sourceId}`, { displayName: 'Renamed', name: 'new-name' });
    expect(name.status).toBe(400);
    expect(name.body.detail.field).toBe('name');
  });

  it('answers 400 to a body that is not application/json', async () => {
    const body = JSON.stringify({ name: 'ct', displayName: 'CT' });
    const send = (headers: Record<string, string>) =>
      fetch(`${api.emulator.url}/v1/sources`, { method: 'POST', headers: { authorization: `Bearer ${api.key}`, ...headers }, body });
    const plain = await send({ 'content-type': 'text/plain' });
    expect(plain.status).toBe(400);
    const detail = ((await plain.json()) as { detail: { error: string; message: string } }).detail;
    expect(detail.error).toBe('validation_error');
    expect(detail.message).toContain('Content-Type must be application/json');
    const form = await send({ 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect((await send({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(201);
  });

  it('answers 422 to query numbers that are not plain decimals', async () => {
    for (const query of ['limit=0x10', 'limit=1e1', 'amountMin=', 'amountMax=Infinity']) {
      const res = await api.get(`/v1/deals?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
    expect((await api.get('/v1/deals?limit=5&amountMin=10.5')).status).toBe(200);
  });

  it('answers an invalid cursor with 422 saying what to pass', async () => {
    const res = await api.get('/v1/rows?cursor=bogus');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'cursor'], type: 'value_error' });
    expect(res.body.detail[0].msg).toMatch(/not a nextCursor of GET \/v1\/rows.*unchanged/);
  });
});

describe('emulator: a 413 that clients writing their whole body first still see', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.emulator.close());

  /** Like Python's http.client: write headers and the whole body, only then read the answer. */
  function writeAllThenRead(path: string, body: Buffer): Promise<{ response: string; writeError: Error | undefined }> {
    const { port } = api.emulator;
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let writeError: Error | undefined;
      let response = '';
      socket.on('error', (error) => {
        writeError ??= error;
      });
      socket.on('connect', () => {
        const head =
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${api.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        socket.write(head);
        socket.write(body, (error) => {
          if (error) writeError ??= error;
          socket.on('data', (chunk: Buffer) => {
            response += chunk.toString('utf8');
            if (/\r\n\r\n[\s\S]*\}$/.test(response)) socket.end();
          });
          socket.on('close', () => resolve({ response, writeError }));
          socket.on('end', () => resolve({ response, writeError }));
        });
      });
      setTimeout(() => reject(new Error(`no answer; got ${JSON.stringify(response.slice(0, 200))}`)), 30_000).unref();
    });
  }

  it('reads the oversized body before answering 413 payload_too_large', async () => {
    // "10 MB" is read as 10,000,000 bytes, the smaller reading: one byte more is refused.
    const body = Buffer.alloc(BODY_LIMIT_BYTES + 1, 0x20);
    const { response, writeError } = await writeAllThenRead('/v1/sources', body);
    expect(writeError).toBeUndefined();
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain('"payload_too_large"');
  });
});

describe('emulator: ask answers 200 to every run that ends inside the wait window', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ askDelayMs: 40 });
    const s = await createSource(api);
    await api.post('/v1/documents', documentBody(s, 'policy', { content: Buffer.from('Expense policy: flights need approval.').toString('base64') }));
  });
  afterAll(() => api.emulator.close());
  afterEach(() => vi.restoreAllMocks());

  /**
   * A wall clock running at half the speed of the timers: every timer
   * "fires early" by the clock, the way a Node timer sometimes wakes a
   * millisecond before Date.now() reaches its target. A single
   * sleep-and-reread answers 202 here; waiting on the run does not.
   */
  function slowClock(): void {
    const realNow = Date.now.bind(Date);
    const origin = realNow();
    vi.spyOn(Date, 'now').mockImplementation(() => origin + Math.floor((realNow() - origin) / 2));
  }

  it('on POST, even when timers wake before the clock reaches the ready time', async () => {
    slowClock();
    const res = await api.post('/v1/ask-assistant', { message: 'expense policy for flights' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
  });

  it('on the poll endpoint too', async () => {
    const orgId = api.emulator.orgId ?? '';
    const runId = randomUUID();
    const threadId = randomUUID();
    slowClock();
    const now = Date.now();
    api.emulator.store.askRuns.create({
      runId, threadId, orgId, message: 'q', finalStatus: 'completed', output: 'answer', error: null, createdMs: now, readyMs: now + 40,
    });
    const res = await api.get(`/v1/ask-assistant/${threadId}/${runId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', output: 'answer' });
  });
});
