import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { T0, conversation, createObjectType, createSource, documentBody, message, row, startApi, type Api } from './helpers.js';

describe('emulator: pushed records', () => {
  let api: Api;
  let sourceId: string;
  let typeId: string;
  beforeAll(async () => {
    api = await startApi();
    sourceId = await createSource(api);
    typeId = await createObjectType(api, sourceId);
  });
  afterAll(() => api.emulator.close());

  describe('conversations', () => {
    it('upserts: created then updated with the same recordId', async () => {
      const first = await api.post('/v1/conversations', conversation(sourceId, 'c-up'));
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ status: 'created', id: 'c-up', sourceId });
      const second = await api.post('/v1/conversations', conversation(sourceId, 'c-up', { displayName: 'Renamed' }));
      expect(second.status).toBe(201);
      expect(second.body).toEqual({ status: 'updated', recordId: first.body.recordId, id: 'c-up', sourceId });
      expect((await api.get(`/v1/conversations/${first.body.recordId}`)).body.title).toBe('Renamed');
    });

    it('maps to the read shapes', async () => {
      const created = await api.post('/v1/conversations', conversation(sourceId, 'c-map', { endedAt: T0 + 60_000 }));
      const detail = await api.get(`/v1/conversations/${created.body.recordId}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        conversationId: created.body.recordId,
        sourceId,
        title: 'Call c-map',
        startTime: '2024-03-01T10:00:00.000Z',
        endTime: '2024-03-01T10:01:00.000Z',
        type: 'EXTERNAL',
        crm: null,
        category: null,
        summary: null,
        recordings: null,
      });
      expect(detail.body.participants).toEqual([
        { name: 'Ann Lee', email: 'ann@acme.com', attended: true },
        { name: 'Bob Stone', email: 'bob@globex.com', attended: true },
      ]);
      expect(detail.body.transcript).toEqual([
        { speaker: 'Ann Lee', text: 'Hello Bob, shall we talk about the renewal?', startTime: 5, endTime: 12 },
        { speaker: 'u-2', text: 'Yes, the renewal price looks high.', startTime: 12, endTime: 12 },
      ]);
      // Without endedAt the end is the last sentence; one domain makes it INTERNAL; an empty name is null.
      const internal = await api.post(
        '/v1/conversations',
        conversation(sourceId, 'c-int', { displayName: '', participants: [{ email: 'a@acme.com' }, { email: 'b@ACME.com' }] }),
      );
      const d2 = await api.get(`/v1/conversations/${internal.body.recordId}`);
      expect(d2.body).toMatchObject({ type: 'INTERNAL', title: null, endTime: '2024-03-01T10:00:12.000Z' });
    });

    it.each([
      ['no transcript and no recordingUrl', { transcript: [] }, 'transcript'],
      ['a malformed timestamp', { startedAt: 'yesterday' }, 'startedAt'],
      ['a sentence outside the window', { transcript: [{ speakerName: 'a', text: 'x', timestamp: T0 + 11 * 3600_000 }] }, 'transcript.0.timestamp'],
      ['a sentence without speaker', { transcript: [{ text: 'x', timestamp: T0 }] }, 'transcript.0.speakerName'],
      ['endedAt before startedAt', { endedAt: T0 - 1000 }, 'endedAt'],
      ['endedAt beyond 10 hours', { endedAt: T0 + 10 * 3600_000 + 1000 }, 'endedAt'],
      ['no participants', { participants: [] }, 'participants'],
      ['a participant without id or email', { participants: [{ name: 'x' }] }, 'participants.0'],
      ['a private record without owners', { public: false }, 'ownerEmails'],
      ['a bad owner e-mail', { public: false, ownerEmails: ['nope'] }, 'ownerEmails.0'],
      ['a missing createdAt', { createdAt: undefined }, 'createdAt'],
      ['a non-uuid sourceId', { sourceId: 'gong' }, 'sourceId'],
      ['an unknown source', { sourceId: randomUUID() }, 'sourceId'],
    ])('refuses %s with 400 on the right field', async (_label, patch, field) => {
      const res = await api.post('/v1/conversations', { ...conversation(sourceId, 'c-bad'), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatchObject({ error: 'validation_error', field });
    });

    it('accepts a recording without transcript and serves it with Range support', async () => {
      const created = await api.post(
        '/v1/conversations',
        conversation(sourceId, 'c-rec', { transcript: undefined, recordingUrl: 'https://files.example.com/call.mp3', endedAt: T0 + 3000 }),
      );
      expect(created.status).toBe(201);
      const detail = await api.get(`/v1/conversations/${created.body.recordId}`);
      const { audioUrl, audioStreamUrl, videoUrl } = detail.body.recordings;
      expect(videoUrl).toBeNull();
      expect(audioUrl).toMatch(new RegExp(`^${api.emulator.url}/media/.+\\.wav\\?.*expires=\\d+`));
      const expires = Number(new URL(audioStreamUrl).searchParams.get('expires'));
      expect(expires * 1000 - Date.now()).toBeGreaterThan(23 * 3600_000);

      const full = await fetch(audioStreamUrl);
      expect(full.status).toBe(200);
      expect(full.headers.get('content-type')).toBe('audio/wav');
      expect(full.headers.get('accept-ranges')).toBe('bytes');
      const bytes = Buffer.from(await full.arrayBuffer());
      expect(bytes.subarray(0, 4).toString()).toBe('RIFF');

      const part = await fetch(audioStreamUrl, { headers: { range: 'bytes=4-11' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 4-11/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(4, 12));
      const suffix = await fetch(audioStreamUrl, { headers: { range: 'bytes=-10' } });
      expect(suffix.status).toBe(206);
      expect(Buffer.from(await suffix.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));
      const bad = await fetch(audioStreamUrl, { headers: { range: `bytes=${bytes.length + 5}-` } });
      expect(bad.status).toBe(416);
      expect(bad.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
      await bad.arrayBuffer();

      const download = await fetch(audioUrl);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
      await download.arrayBuffer();
      const tampered = await fetch(audioUrl.replace(/signature=[^&]+/, 'signature=forged'));
      expect(tampered.status).toBe(403);
      await tampered.arrayBuffer();
    });

    it('hides private records from lists and detail', async () => {
      const priv = await api.post('/v1/conversations', conversation(sourceId, 'c-private', { public: false, ownerEmails: ['ann@acme.com'] }));
      expect(priv.status).toBe(201);
      expect((await api.get(`/v1/conversations/${priv.body.recordId}`)).status).toBe(404);
      const list = await api.get(`/v1/conversations?sourceId=${sourceId}&limit=50`);
      expect(list.body.conversations.some((c: { conversationId: string }) => c.conversationId === priv.body.recordId)).toBe(false);
    });

    it('soft-deletes, 404s a second delete, and revives on a later POST', async () => {
      const created = await api.post('/v1/conversations', conversation(sourceId, 'c-del'));
      const deleted = await api.del(`/v1/conversations?remoteId=c-del&sourceId=${sourceId}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ status: 'deleted', recordId: created.body.recordId, id: 'c-del', sourceId });
      expect(Number.isNaN(Date.parse(deleted.body.deletedAt))).toBe(false);
      expect((await api.get(`/v1/conversations/${created.body.recordId}`)).status).toBe(404);
      const again = await api.del(`/v1/conversations?remoteId=c-del&sourceId=${sourceId}`);
      expect(again.status).toBe(404);
      expect(again.body.detail.error).toBe('not_found');
      const revived = await api.post('/v1/conversations', conversation(sourceId, 'c-del'));
      expect(revived.body).toMatchObject({ status: 'created', recordId: created.body.recordId });
      expect((await api.get(`/v1/conversations/${created.body.recordId}`)).status).toBe(200);
      expect((await api.del(`/v1/conversations?remoteId=never&sourceId=${sourceId}`)).status).toBe(404);
    });
  });

  describe('messages', () => {
    it('upserts and maps to the read shapes', async () => {
      const attachments = [{ name: 'report.pdf', url: 'https://x.example.com/r.pdf', mimeType: 'application/pdf', sizeBytes: 1234 }];
      const first = await api.post('/v1/messages', message(sourceId, 'm-1', { attachments }));
      expect(first.status).toBe(201);
      expect(first.body.status).toBe('created');
      const second = await api.post('/v1/messages', message(sourceId, 'm-1', { attachments }));
      expect(second.body).toMatchObject({ status: 'updated', recordId: first.body.recordId });
      const detail = await api.get(`/v1/messages/${first.body.recordId}`);
      expect(detail.body).toMatchObject({
        messageId: first.body.recordId,
        sourceId,
        remoteId: 'm-1',
        threadId: 'thread-1',
        subject: 'Subject m-1',
        sender: { name: 'Ann Lee', email: 'ann@acme.com' },
        recipients: [{ name: null, email: 'bob@globex.com' }],
        createdAt: '2024-03-01T10:00:00.000Z',
      });
      expect(detail.body.bodyPreview).toHaveLength(200);
      expect(detail.body.body.length).toBeGreaterThan(200);
      expect(detail.body.attachments).toEqual([
        { id: expect.stringMatching(/^[0-9a-f-]{36}$/), filename: 'report.pdf', contentType: 'application/pdf', size: 1234 },
      ]);
      const list = await api.get(`/v1/messages?remoteId=m-1`);
      expect(list.body.messages[0]).not.toHaveProperty('body');
      expect(list.body.messages[0]).not.toHaveProperty('attachments');
    });

    it.each([
      ['a body over 100,000 characters', { body: 'x'.repeat(100_001) }, 'body'],
      ['no recipients', { recipients: [] }, 'recipients'],
      ['a sender without id or email', { sender: { name: 'x' } }, 'sender'],
      ['an attachment without url', { attachments: [{ name: 'a' }] }, 'attachments.0.url'],
    ])('refuses %s', async (_label, patch, field) => {
      const res = await api.post('/v1/messages', { ...message(sourceId, 'm-bad'), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.detail.field).toBe(field);
    });

    it('deletes softly', async () => {
      await api.post('/v1/messages', message(sourceId, 'm-del'));
      expect((await api.del(`/v1/messages?remoteId=m-del&sourceId=${sourceId}`)).body.status).toBe('deleted');
      expect((await api.get('/v1/messages?remoteId=m-del')).body.messages).toEqual([]);
    });
  });

  describe('rows', () => {
    it('upserts and maps fields with labels', async () => {
      const first = await api.post('/v1/rows', row(sourceId, typeId, 'row-1', { createdAt: '2024-01-02T03:04:05Z', updatedAt: 1704164645 }));
      expect(first.body.status).toBe('created');
      expect((await api.post('/v1/rows', row(sourceId, typeId, 'row-1'))).body).toMatchObject({ status: 'updated', recordId: first.body.recordId });
      await api.post('/v1/rows', row(sourceId, typeId, 'row-1', { createdAt: '2024-01-02T03:04:05Z', updatedAt: 1704164645 }));
      const got = await api.get(`/v1/rows/${first.body.recordId}`);
      expect(got.body).toEqual({
        rowId: first.body.recordId,
        sourceId,
        objectTypeId: typeId,
        objectTypeName: 'deal',
        remoteId: 'row-1',
        name: 'Deal row-1',
        fields: {
          amount: { value: 100.5, fieldType: 'double', label: 'Amount' },
          stage: { value: 'open', fieldType: 'string', label: null },
        },
        createdAt: '2024-01-02T03:04:05.000Z',
        updatedAt: '2024-01-02T03:04:05.000Z',
      });
    });

    it.each([
      ['an unknown field', { fields: { amount: { value: 1, fieldType: 'double' }, color: { value: 'red', fieldType: 'string' } } }, 'fields.color'],
      ['a fieldType other than declared', { fields: { amount: { value: 1, fieldType: 'int' } } }, 'fields.amount.fieldType'],
      ['a value not matching its fieldType', { fields: { amount: { value: 'lots', fieldType: 'double' } } }, 'fields.amount.value'],
      ['a missing required field', { fields: { stage: { value: 'x', fieldType: 'string' } } }, 'fields.amount'],
      ['a null required field', { fields: { amount: { value: null, fieldType: 'double' } } }, 'fields.amount.value'],
      ['no fields', { fields: {} }, 'fields'],
      ['an empty name', { name: '' }, 'name'],
      ['an unknown object type', { objectTypeId: randomUUID() }, 'objectTypeId'],
    ])('refuses %s with 400', async (_label, patch, field) => {
      const res = await api.post('/v1/rows', { ...row(sourceId, typeId, 'row-bad'), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatchObject({ error: 'validation_error', field });
    });

    it('merges PATCH fields per RFC 7396 and ignores top-level nulls', async () => {
      const created = await api.post(
        '/v1/rows',
        row(sourceId, typeId, 'row-patch', {
          fields: {
            amount: { value: 1, fieldType: 'double' },
            stage: { value: 'open', fieldType: 'string' },
            closed: { value: false, fieldType: 'boolean' },
          },
        }),
      );
      const patched = await api.patch(`/v1/rows?remoteId=row-patch&sourceId=${sourceId}`, {
        name: null,
        public: null,
        ownerEmails: null,
        updatedAt: null,
        fields: { stage: { value: 'won', fieldType: 'string' }, closed: null, tags: { value: ['a'], fieldType: 'list' } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ status: 'updated', recordId: created.body.recordId, id: 'row-patch', sourceId });
      const got = await api.get(`/v1/rows/${created.body.recordId}`);
      expect(got.body.name).toBe('Deal row-patch');
      expect(got.body.fields).toEqual({
        amount: { value: 1, fieldType: 'double', label: 'Amount' },
        stage: { value: 'won', fieldType: 'string', label: null },
        tags: { value: ['a'], fieldType: 'list', label: null },
      });
      const renamed = await api.patch(`/v1/rows?remoteId=row-patch&sourceId=${sourceId}`, { name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect((await api.get(`/v1/rows/${created.body.recordId}`)).body.name).toBe('Renamed');
    });

    it('refuses bad PATCHes with 400, 403 and 404', async () => {
      await api.post('/v1/rows', row(sourceId, typeId, 'row-perr'));
      const path = `/v1/rows?remoteId=row-perr&sourceId=${sourceId}`;
      const unknown = await api.patch(path, { fields: { color: { value: 'x', fieldType: 'string' } } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.detail.field).toBe('fields.color');
      const mismatch = await api.patch(path, { fields: { stage: { value: 1, fieldType: 'int' } } });
      expect(mismatch.body.detail.field).toBe('fields.stage.fieldType');
      const required = await api.patch(path, { fields: { amount: null } });
      expect(required.status).toBe(400);
      expect(required.body.detail.field).toBe('fields.amount');
      const absent = await api.patch(`/v1/rows?remoteId=nope&sourceId=${sourceId}`, { name: 'x' });
      expect(absent.status).toBe(404);
      expect(absent.body.detail.error).toBe('not_found');
      const noSource = await api.patch(`/v1/rows?remoteId=row-perr&sourceId=${randomUUID()}`, { name: 'x' });
      expect(noSource.status).toBe(404);
    });

    it('filters rows', async () => {
      const s = await createSource(api);
      const t = await createObjectType(api, s);
      await api.post('/v1/rows', row(s, t, 'f-1', { name: 'Acme renewal', createdAt: '2024-01-01T00:00:00Z' }));
      await api.post('/v1/rows', row(s, t, 'f-2', { name: 'Globex expansion', createdAt: '2024-02-01T00:00:00Z' }));
      await api.post('/v1/rows', row(s, t, 'f-3', { name: 'ACME upsell' }));
      const names = async (q: string) => ((await api.get(`/v1/rows?sourceId=${s}&${q}`)).body.rows as { name: string }[]).map((r) => r.name);
      expect(await names('name=acme')).toEqual(expect.arrayContaining(['Acme renewal', 'ACME upsell']));
      expect(await names('name=acme')).toHaveLength(2);
      expect(await names('remoteId=f-2')).toEqual(['Globex expansion']);
      expect(await names('createdAfter=2024-01-15T00:00:00Z')).toEqual(['Globex expansion']);
      expect(await names('createdBefore=2024-01-15T00:00:00Z')).toEqual(['Acme renewal']);
      expect(await names(`objectTypeId=${t}`)).toHaveLength(3);
      expect((await api.get(`/v1/rows?name=${'x'.repeat(1001)}`)).status).toBe(422);
      expect((await api.get('/v1/rows?createdAfter=notadate')).status).toBe(422);
    });
  });

  describe('documents', () => {
    it('upserts, derives display names and maps to the read shape', async () => {
      const first = await api.post('/v1/documents', documentBody(sourceId, 'd-1', { createdAt: '2024-01-01T00:00:00Z' }));
      expect(first.status).toBe(201);
      const got = await api.get(`/v1/documents/${first.body.recordId}`);
      expect(got.body).toEqual({
        id: first.body.recordId,
        displayName: 'guide.txt',
        sourceId,
        remoteId: 'd-1',
        url: null,
        contentType: 'text/plain',
        createdAt: '2024-01-01T00:00:00.000Z',
        updatedAt: null,
      });
      const byUrl = await api.post('/v1/documents', {
        id: 'd-url',
        sourceId,
        public: true,
        url: 'https://docs.example.com/files/Pricing%20Sheet.pdf?x=1',
        contentType: 'application/pdf',
      });
      const urlDoc = await api.get(`/v1/documents/${byUrl.body.recordId}`);
      expect(urlDoc.body).toMatchObject({ displayName: 'Pricing Sheet.pdf', url: 'https://docs.example.com/files/Pricing%20Sheet.pdf?x=1', contentType: 'application/pdf' });
      expect((await api.post('/v1/documents', documentBody(sourceId, 'd-1'))).body.status).toBe('updated');
    });

    it.each([
      ['both url and content', { url: 'https://x.example.com/a.txt' }, 'content'],
      ['neither url nor content', { content: undefined }, 'url'],
      ['content without displayName or filename', { filename: undefined }, 'displayName'],
      ['content that is not base64', { content: '***' }, 'content'],
    ])('refuses %s', async (_label, patch, field) => {
      const res = await api.post('/v1/documents', { ...documentBody(sourceId, 'd-bad'), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.detail.field).toBe(field);
    });

    it('PATCHes metadata or a new version, never both url and content', async () => {
      const created = await api.post('/v1/documents', documentBody(sourceId, 'd-patch'));
      const path = `/v1/documents?remoteId=d-patch&sourceId=${sourceId}`;
      const meta = await api.patch(path, { displayName: 'Guide v1', updatedAt: '2024-05-01T00:00:00Z' });
      expect(meta.body).toEqual({ status: 'updated', recordId: created.body.recordId, id: 'd-patch', sourceId });
      const both = await api.patch(path, { url: 'https://x.example.com/a', content: 'YQ==' });
      expect(both.status).toBe(400);
      expect(both.body.detail.field).toBe('content');
      const version = await api.patch(path, { url: 'https://x.example.com/guide-v2.html', contentType: 'text/html' });
      expect(version.status).toBe(200);
      const got = await api.get(`/v1/documents/${created.body.recordId}`);
      expect(got.body).toMatchObject({ displayName: 'Guide v1', url: 'https://x.example.com/guide-v2.html', contentType: 'text/html', updatedAt: '2024-05-01T00:00:00.000Z' });
      const stored = api.emulator.store.records.findById('document', created.body.recordId);
      expect(stored?.data.version).toBe(2);
      expect((await api.patch(`/v1/documents?remoteId=none&sourceId=${sourceId}`, { displayName: 'x' })).status).toBe(404);
    });

    it('filters documents by name and source', async () => {
      const s = await createSource(api);
      await api.post('/v1/documents', documentBody(s, 'n-1', { displayName: 'Security Policy' }));
      await api.post('/v1/documents', documentBody(s, 'n-2', { displayName: 'Travel policy' }));
      await api.post('/v1/documents', documentBody(s, 'n-3', { displayName: 'Handbook' }));
      const res = await api.get(`/v1/documents?sourceId=${s}&name=POLICY`);
      expect(res.body.documents.map((d: { displayName: string }) => d.displayName).sort()).toEqual(['Security Policy', 'Travel policy']);
      expect((await api.get(`/v1/documents?name=${'x'.repeat(256)}`)).status).toBe(422);
    });
  });

  it('answers a concurrent write of the same record with 409 conflict', async () => {
    api.emulator.setFaults({ latencyMs: 300 });
    try {
      const [a, b] = await Promise.all([
        api.post('/v1/rows', row(sourceId, typeId, 'row-race')),
        api.post('/v1/rows', row(sourceId, typeId, 'row-race')),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body.detail.error).toBe('conflict');
      // Different records do not collide.
      const [c, d] = await Promise.all([
        api.post('/v1/rows', row(sourceId, typeId, 'row-race-c')),
        api.post('/v1/rows', row(sourceId, typeId, 'row-race-d')),
      ]);
      expect([c.status, d.status]).toEqual([201, 201]);
    } finally {
      api.emulator.setFaults({});
    }
  });
});
