import { describe, expect, it } from 'vitest';
import { buildRequest } from '../../../src/mapping/index.js';
import type { BuildContext } from '../../../src/mapping/index.js';
import type { FieldType } from '../../../src/sdk/types.js';

const SOURCE_ID = '6f1f7c1e-8d7e-4d5a-9f44-0d2f3f6b2a10';
const OBJECT_TYPE_ID = '0b8e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b';
const ctx: BuildContext = { sourceId: SOURCE_ID };

function conversation(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'call-1',
    public: true,
    createdAt: 1591056787005,
    startedAt: '2020-06-02T00:13:07Z',
    participants: [{ email: 'agent@bank.example', name: 'Elizabeth' }],
    transcript: [{ speakerName: 'agent', text: 'hello', timestamp: 1591056787005 }],
    ...overrides,
  };
}

describe('buildRequest: common rules', () => {
  it('injects sourceId, coerces a numeric id to text and returns the parsed body', () => {
    const built = buildRequest('conversation', conversation({ id: 42, sourceId: 'spoofed' }), ctx);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.remoteId).toBe('42');
    expect(built.body.id).toBe('42');
    expect(built.body.sourceId).toBe(SOURCE_ID);
    expect(built.body.createdAt).toBe('2020-06-02T00:13:07.005Z');
    expect(built.body.displayName).toBe(''); // schema default, so the parsed output is what is sent
  });

  it.each([undefined, null, ''])('refuses an id of %j with a clear reason', (id) => {
    const built = buildRequest('conversation', conversation({ id }), ctx);
    expect(built).toMatchObject({ ok: false, field: 'id' });
    if (built.ok) return;
    expect(built.reason).toBe('id: map.id produced nothing');
    expect(built.partialBody?.transcript).toBeDefined();
  });

  it('refuses an id that is neither text nor a number', () => {
    const built = buildRequest('conversation', conversation({ id: { a: 1 } }), ctx);
    expect(built).toMatchObject({ ok: false, field: 'id', reason: 'id: map.id must produce text or a number, found {"a":1}' });
  });

  it('normalises timestamps from Date, Unix seconds, Unix ms, digit strings, ISO and e-mail dates', () => {
    const cases: [unknown, string][] = [
      [new Date('2020-06-02T00:13:07.005Z'), '2020-06-02T00:13:07.005Z'],
      [1591056787, '2020-06-02T00:13:07.000Z'],
      [1591056787005, '2020-06-02T00:13:07.005Z'],
      ['1591056787005', '2020-06-02T00:13:07.005Z'],
      ['2020-06-02T02:13:07+02:00', '2020-06-02T00:13:07.000Z'],
      ['Mon, 14 May 2001 16:39:00 -0700 (PDT)', '2001-05-14T23:39:00.000Z'],
      ['Fri, 4 May 2001 13:51:00 PDT', '2001-05-04T20:51:00.000Z'],
    ];
    for (const [input, expected] of cases) {
      const built = buildRequest('conversation', conversation({ createdAt: input }), ctx);
      expect(built.ok && built.body.createdAt, String(input)).toBe(expected);
    }
  });

  it('names the field and value of an unreadable timestamp', () => {
    const built = buildRequest('conversation', conversation({ createdAt: 'yesterday', endedAt: '2020-02-30T00:00:00Z' }), ctx);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.field).toBe('createdAt');
    expect(built.reason).toContain('createdAt: "yesterday" is not a timestamp');
    expect(built.reason).toContain('endedAt: "2020-02-30T00:00:00Z" is not a timestamp');
    // Reported once, in ferry's words, not again by the schema.
    expect(built.reason.match(/createdAt/g)).toHaveLength(1);
  });

  it('summarises every schema issue with its path, first issue as field', () => {
    const built = buildRequest(
      'conversation',
      conversation({
        public: false,
        ownerEmails: ['not-an-email'],
        transcript: [
          { speakerName: 'a', text: 'ok', timestamp: '2020-06-02T00:13:08Z' },
          { speakerName: 'a', text: 'late', timestamp: '2020-06-02T11:00:00Z' },
        ],
      }),
      ctx,
    );
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.field).toBe('ownerEmails.0');
    expect(built.reason).toMatch(/^ownerEmails\.0: "not-an-email" is not a valid e-mail address; ownerEmails: a private record/);
    expect(built.reason).toContain('transcript.1.timestamp: sentence timestamp 2020-06-02T11:00:00.000Z lies outside the conversation window');
  });

  it('wraps a single participant or sentence (JSONata returns one match unwrapped) and turns numeric ids into text', () => {
    const built = buildRequest(
      'conversation',
      conversation({
        participants: { id: 46, name: 'Elizabeth' },
        transcript: { speakerId: 46, text: 'hello', timestamp: '1591056787005' },
        ownerEmails: 'owner@bank.example',
        public: 'false',
      }),
      ctx,
    );
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.body.participants).toEqual([{ id: '46', name: 'Elizabeth' }]);
    expect(built.body.transcript).toEqual([{ speakerId: '46', text: 'hello', timestamp: '2020-06-02T00:13:07.005Z' }]);
    expect(built.body.ownerEmails).toEqual(['owner@bank.example']);
    expect(built.body.public).toBe(false);
  });

  it('leaves out null where the field is optional but not nullable, and refuses it where required', () => {
    const built = buildRequest('conversation', conversation({ ownerEmails: null, endedAt: null }), ctx);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect('ownerEmails' in built.body).toBe(false);
    expect(built.body.endedAt).toBeNull();
    const required = buildRequest('conversation', conversation({ startedAt: null }), ctx);
    expect(required).toMatchObject({ ok: false, field: 'startedAt' });
  });

  it('leaves out a NULL displayName, transcript, createdAt or contentType, which the spec does not make nullable', () => {
    const call = buildRequest('conversation', conversation({ displayName: null, transcript: null, recordingUrl: 'https://calls.example/1.wav' }), ctx);
    expect(call.ok).toBe(true);
    if (!call.ok) return;
    expect(call.body.displayName).toBe('');
    expect('transcript' in call.body).toBe(false);
    const doc = buildRequest('document', { id: 'd', public: true, url: 'https://docs.example/a.txt', createdAt: null, contentType: null }, ctx);
    expect(doc.ok).toBe(true);
    if (!doc.ok) return;
    expect('createdAt' in doc.body).toBe(false);
    expect(doc.body.contentType).toBe('text/plain');
  });

  it('needs a transcript or a recording', () => {
    const built = buildRequest('conversation', conversation({ transcript: undefined }), ctx);
    expect(built).toMatchObject({ ok: false, field: 'transcript' });
  });
});

describe('buildRequest: message', () => {
  const message = {
    id: '<18782981.1075855378110.JavaMail.evans@thyme>',
    createdAt: 'Mon, 14 May 2001 16:39:00 -0700 (PDT)',
    displayName: '',
    body: 'Here is our forecast\n\n ',
    sender: 'phillip.allen@enron.com',
    recipients: 'tim.belden@enron.com',
    ownerEmails: ['phillip.allen@enron.com'],
  };

  it('builds a message, reading bare addresses as people', () => {
    const built = buildRequest('message', message, ctx);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.body).toMatchObject({
      sender: { email: 'phillip.allen@enron.com' },
      recipients: [{ email: 'tim.belden@enron.com' }],
      createdAt: '2001-05-14T23:39:00.000Z',
      sourceId: SOURCE_ID,
    });
  });

  it('refuses a message without recipients or with an empty sender', () => {
    const built = buildRequest('message', { ...message, recipients: [], sender: { name: 'Phillip K Allen' } }, ctx);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.reason).toContain('sender: a person needs at least one of id or email');
    expect(built.reason).toContain('recipients:');
  });
});

describe('buildRequest: row', () => {
  const fieldTypes = new Map<string, FieldType>([
    ['amount', 'int'],
    ['ratio', 'double'],
    ['won', 'boolean'],
    ['closed', 'date'],
    ['seen', 'datetime'],
    ['tags', 'list'],
    ['stage', 'string'],
    ['notes', 'textarea'],
  ]);
  const rowCtx: BuildContext = { sourceId: SOURCE_ID, objectTypeId: OBJECT_TYPE_ID, fieldTypes, fieldLabels: new Map([['amount', 'Amount'], ['stage', undefined]]) };

  it('wraps fields with their type and label, coercing losslessly', () => {
    const built = buildRequest(
      'row',
      {
        id: 'D1',
        name: 1054,
        public: true,
        fields: {
          amount: '1054',
          ratio: '3.5',
          won: 'yes',
          closed: '2017-03-01T00:00:00Z',
          seen: 1591056787,
          tags: ['a'],
          stage: 42,
          notes: 'long\ntext',
          undeclared: 'dropped',
        },
      },
      rowCtx,
    );
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.body.objectTypeId).toBe(OBJECT_TYPE_ID);
    expect(built.body.name).toBe('1054');
    expect(built.body.fields).toEqual({
      amount: { value: 1054, fieldType: 'int', label: 'Amount' },
      ratio: { value: 3.5, fieldType: 'double' },
      won: { value: true, fieldType: 'boolean' },
      closed: { value: '2017-03-01', fieldType: 'date' },
      seen: { value: '2020-06-02T00:13:07.000Z', fieldType: 'datetime' },
      tags: { value: ['a'], fieldType: 'list' },
      stage: { value: '42', fieldType: 'string' },
      notes: { value: 'long\ntext', fieldType: 'textarea' },
    });
  });

  it('leaves out blank and missing fields, keeps null as an empty value', () => {
    const built = buildRequest('row', { id: 'D1', name: 'n', public: true, fields: { amount: '', ratio: undefined, stage: null, won: 'false' } }, rowCtx);
    expect(built.ok && built.body.fields).toEqual({ stage: { value: null, fieldType: 'string' }, won: { value: false, fieldType: 'boolean' } });
  });

  it.each<[string, unknown, string]>([
    ['amount', '12.5', 'fields.amount: expected int, found "12.5"'],
    ['amount', '1,054', 'fields.amount: expected int, found "1,054"'],
    ['amount', '9007199254740993', 'fields.amount: expected int, found "9007199254740993"'],
    ['ratio', 'n/a', 'fields.ratio: expected double, found "n/a"'],
    ['won', 'maybe', 'fields.won: expected boolean, found "maybe"'],
    ['closed', '2017-03-01T10:00:00Z', 'fields.closed: expected date, found "2017-03-01T10:00:00Z"'],
    ['closed', '03/01/2017', 'fields.closed: expected date, found "03/01/2017"'],
    ['seen', 'soon', 'fields.seen: expected datetime, found "soon"'],
    ['tags', 'a,b', 'fields.tags: expected list, found "a,b"'],
    ['stage', { nested: true }, 'fields.stage: expected string, found {"nested":true}'],
  ])('refuses %s = %j, naming field, type and value', (field, value, reason) => {
    const built = buildRequest('row', { id: 'D1', name: 'n', public: true, fields: { stage: 'Won', [field]: value } }, rowCtx);
    expect(built).toMatchObject({ ok: false, field: `fields.${field}` });
    if (built.ok) return;
    expect(built.reason).toBe(reason);
  });

  it('needs at least one field', () => {
    const built = buildRequest('row', { id: 'D1', name: 'n', public: true, fields: { amount: '' } }, rowCtx);
    expect(built).toMatchObject({ ok: false, field: 'fields', reason: 'fields: fields needs at least 1 entry' });
  });

  it('says so when the object type is unknown', () => {
    const built = buildRequest('row', { id: 'D1', name: 'n', public: true, fields: { amount: 1 } }, { sourceId: SOURCE_ID });
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.reason).toContain('objectTypeId: the object type has no id yet');
    expect(built.reason).toContain("fields: the object type's field types are not known");
  });
});

describe('buildRequest: document', () => {
  const content = Buffer.from('# Leading projects\n\nIt’s about people.', 'utf8').toString('base64');

  it('builds a content upload with a default content type', () => {
    const built = buildRequest('document', { id: 'pages/leading.md', filename: 'leading.md', content, public: true, author: { email: 'a@gsa.example' } }, ctx);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.body.contentType).toBe('text/plain');
    expect(Buffer.from(built.body.content as string, 'base64').toString('utf8')).toContain('It’s about people.');
  });

  it('takes raw bytes as base64', () => {
    const built = buildRequest('document', { id: 'd', displayName: 'D', content: Buffer.from([0, 255, 1]), public: true }, ctx);
    expect(built.ok && built.body.content).toBe('AP8B');
  });

  it('refuses both url and content, and plain text as content', () => {
    const both = buildRequest('document', { id: 'd', displayName: 'D', url: 'https://x.example', content, public: true }, ctx);
    expect(both).toMatchObject({ ok: false, field: 'content' });
    const text = buildRequest('document', { id: 'd', displayName: 'D', content: 'not base64!', public: true }, ctx);
    expect(text).toMatchObject({ ok: false, field: 'content', reason: 'content: must be base64-encoded bytes' });
  });
});
