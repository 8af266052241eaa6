import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { apiFor, conversation, createSource, documentBody, message, startApi, T0, type Api } from './helpers.js';

describe('emulator: ask assistant', () => {
  let api: Api;
  let convId: string;
  let privateId: string;
  beforeAll(async () => {
    api = await startApi({ askDelayMs: 30 });
    const sourceId = await createSource(api);
    convId = (
      await api.post(
        '/v1/conversations',
        conversation(sourceId, 'ask-1', {
          transcript: [
            { speakerName: 'Ann', text: 'The onboarding timeline for Initech is six weeks.', timestamp: T0 + 1000 },
            { speakerName: 'Bob', text: 'We need the security questionnaire before kickoff.', timestamp: T0 + 5000 },
          ],
        }),
      )
    ).body.recordId;
    await api.post('/v1/messages', message(sourceId, 'ask-m', { body: 'Lunch menu for Friday: tacos.' }));
    await api.post('/v1/documents', documentBody(sourceId, 'ask-d', { content: Buffer.from('Expense policy: flights need approval.').toString('base64') }));
    privateId = (
      await api.post('/v1/messages', message(sourceId, 'ask-private', { public: false, ownerEmails: ['a@b.co'], body: 'Secret zeppelin acquisition plan.' }))
    ).body.recordId;
  });
  afterAll(() => api.emulator.close());

  it('answers within the wait window with 200 and cites the record', async () => {
    const res = await api.post('/v1/ask-assistant', { message: 'What is the onboarding timeline for Initech?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', threadId: expect.any(String), runId: expect.any(String) });
    expect(res.body.output).toContain(`[conversation ${convId}]`);
    expect(res.body.output).toContain('six weeks');
    expect(Number.isInteger(res.body.generatedAt)).toBe(true);
  });

  it('never answers from private records', async () => {
    const res = await api.post('/v1/ask-assistant', { message: 'zeppelin acquisition' });
    expect(res.status).toBe(200);
    expect(res.body.output).not.toContain(privateId);
    expect(res.body.output).not.toContain('zeppelin acquisition plan');
  });

  it('answers 202 with Location and Retry-After, then the poll completes', async () => {
    const slow = await startEmulator({ askWaitMs: 20, askDelayMs: 200 });
    try {
      const a = apiFor(slow, slow.devKey ?? '');
      const s = await createSource(a);
      await a.post('/v1/documents', documentBody(s, 'doc', { content: Buffer.from('Expense policy: flights need approval.').toString('base64') }));
      const first = await a.post('/v1/ask-assistant', { message: 'expense policy' });
      expect(first.status).toBe(202);
      expect(first.body).toEqual({ threadId: first.body.threadId, runId: first.body.runId, status: 'running' });
      const location = first.headers.get('location');
      expect(location).toBe(`/v1/ask-assistant/${first.body.threadId}/${first.body.runId}`);
      expect(first.headers.get('retry-after')).toBe('5');
      let poll = await a.get(location ?? '');
      for (let i = 0; i < 50 && poll.status === 202; i++) poll = await a.get(location ?? '');
      expect(poll.status).toBe(200);
      expect(poll.body.status).toBe('completed');
      expect(poll.body.output).toContain('flights need approval');

      // Unknown, malformed and cross-organization runs are 404.
      expect((await a.get(`/v1/ask-assistant/${randomUUID()}/${randomUUID()}`)).status).toBe(404);
      expect((await a.get('/v1/ask-assistant/x/y')).status).toBe(404);
      expect((await api.get(location ?? '')).status).toBe(404);
    } finally {
      await slow.close();
    }
  });

  it('fails a run when the organization has nothing readable', async () => {
    const empty = await startEmulator({ askDelayMs: 10 });
    try {
      const res = await apiFor(empty, empty.devKey ?? '').post('/v1/ask-assistant', { message: 'anything?' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('failed');
      expect(typeof res.body.error).toBe('string');
      expect(res.body).not.toHaveProperty('output');
    } finally {
      await empty.close();
    }
  });

  it('validates the question', async () => {
    const res = await api.post('/v1/ask-assistant', { message: '' });
    expect(res.status).toBe(400);
    expect(res.body.detail.field).toBe('message');
  });
});
