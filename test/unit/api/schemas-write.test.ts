import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  askRequest,
  attachment,
  conversationRequest,
  createObjectTypeRequest,
  createSourceRequest,
  documentRequest,
  fieldDefinitionRequest,
  messageRequest,
  person,
  rowFieldValue,
  rowRequest,
  transcriptSentence,
  updateDocumentRequest,
  updateObjectTypeRequest,
  updateRowRequest,
  updateSourceRequest,
  valueMatchesFieldType,
} from '../../../src/api/schemas/index.js';
import { CALL, OBJECT_TYPE_ID, SOURCE_ID, dealObjectType, dealRow, enronMessage, harperValleyConversation, rfcDocument } from './fixtures.js';
import { accepts, rejects } from './expect-schema.js';

const HOUR = 3_600_000;
const longText = (n: number) => 'a'.repeat(n);

describe('Person', () => {
  it('accepts an id or an e-mail', () => {
    accepts(person, { id: '56', name: 'James Miller' });
    accepts(person, { email: 'phillip.allen@enron.com' });
    accepts(person, { id: null, name: null, email: 'k..allen@enron.com' });
  });
  it('rejects a person with neither id nor email', () => {
    rejects(person, { name: 'James Miller' }, '', /at least one of id or email/);
    rejects(person, { id: '', email: null }, '', /at least one of id or email/);
  });
});

describe('BaseRequest rules (on every ingest body)', () => {
  const bodies = {
    conversation: [conversationRequest, harperValleyConversation()],
    message: [messageRequest, enronMessage()],
    row: [rowRequest, dealRow()],
    document: [documentRequest, rfcDocument()],
  } as const;

  for (const [kind, [schema, body]] of Object.entries(bodies)) {
    describe(kind, () => {
      it('needs a non-empty id and a UUID sourceId', () => {
        rejects(schema, { ...body, id: '' }, 'id');
        rejects(schema, { ...body, id: undefined }, 'id');
        rejects(schema, { ...body, sourceId: 'crm' }, 'sourceId', /UUID/);
      });
      it('needs a valid owner e-mail on a private record', () => {
        const { ownerEmails: _drop, ...rest } = { ...body, public: false };
        rejects(schema, rest, 'ownerEmails', /private record/);
        rejects(schema, { ...rest, ownerEmails: [] }, 'ownerEmails', /private record/);
        rejects(schema, { ...rest, ownerEmails: ['Phillip K Allen'] }, 'ownerEmails.0', /not a valid e-mail/);
        accepts(schema, { ...rest, ownerEmails: ['phillip.allen@enron.com'] });
        // public absent counts as private.
        const { public: _p, ...noPublic } = rest;
        rejects(schema, noPublic, 'ownerEmails', /private record/);
      });
      it('accepts a public record without owners but still checks given owners', () => {
        const { ownerEmails: _drop, ...rest } = { ...body, public: true };
        accepts(schema, rest);
        rejects(schema, { ...rest, ownerEmails: ['not-an-address'] }, 'ownerEmails.0');
      });
      it('normalises updatedAt and accepts null', () => {
        const parsed = accepts(schema, { ...body, updatedAt: CALL.endMs }) as { updatedAt?: string | null };
        expect(parsed.updatedAt).toBe('2020-05-30T18:13:30.240Z');
        accepts(schema, { ...body, updatedAt: null });
        rejects(schema, { ...body, updatedAt: 'last tuesday' }, 'updatedAt');
      });
    });
  }
});

describe('ConversationRequest', () => {
  const call = harperValleyConversation();

  it('accepts the Harper Valley call with epoch-ms timestamps and normalises them to ISO', () => {
    const parsed = accepts(conversationRequest, call);
    expect(parsed.startedAt).toBe('2020-05-30T18:12:54.809Z');
    expect(parsed.endedAt).toBe('2020-05-30T18:13:30.240Z');
    expect(parsed.createdAt).toBe('2020-05-30T18:12:54.809Z');
    expect(parsed.transcript?.[0]?.timestamp).toBe('2020-05-30T18:12:56.923Z');
    expect(parsed.transcript).toHaveLength(8);
  });

  it('accepts the same call in Unix seconds and in ISO 8601 with an offset', () => {
    const seconds = {
      ...call,
      startedAt: CALL.startMs / 1000,
      endedAt: CALL.endMs / 1000,
      transcript: call.transcript?.map((s) => ({ ...s, timestamp: Number(s.timestamp) / 1000 })),
    };
    expect(accepts(conversationRequest, seconds).transcript?.[7]?.timestamp).toBe('2020-05-30T18:13:29.223Z');
    const iso = { ...call, startedAt: '2020-05-30T20:12:54.809+02:00', endedAt: '2020-05-30T18:13:30.240Z' };
    expect(accepts(conversationRequest, iso).startedAt).toBe('2020-05-30T18:12:54.809Z');
  });

  it('defaults displayName to the empty string', () => {
    const { displayName: _d, ...rest } = call;
    expect(accepts(conversationRequest, rest).displayName).toBe('');
  });

  it('requires createdAt and startedAt, and participants', () => {
    const { createdAt: _c, ...noCreated } = call;
    rejects(conversationRequest, noCreated, 'createdAt');
    const { startedAt: _s, ...noStart } = call;
    rejects(conversationRequest, noStart, 'startedAt');
    const { participants: _p, ...noParticipants } = call;
    rejects(conversationRequest, noParticipants, 'participants');
    rejects(conversationRequest, { ...call, startedAt: 'soon' }, 'startedAt', /ISO 8601/);
  });

  it('takes 1 to 1000 participants', () => {
    rejects(conversationRequest, { ...call, participants: [] }, 'participants');
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${i}` }));
    accepts(conversationRequest, { ...call, participants: many(LIMITS.participants.max) });
    rejects(conversationRequest, { ...call, participants: many(LIMITS.participants.max + 1) }, 'participants');
    rejects(conversationRequest, { ...call, participants: [{ name: 'John' }] }, 'participants.0');
  });

  it('needs a non-empty transcript or a recordingUrl', () => {
    rejects(conversationRequest, { ...call, transcript: [] }, 'transcript', /transcript or a recordingUrl/);
    rejects(conversationRequest, { ...call, transcript: undefined, recordingUrl: null }, 'transcript', /transcript or a recordingUrl/);
    // The spec does not mark transcript nullable: leave it out instead.
    rejects(conversationRequest, { ...call, transcript: null, recordingUrl: 'https://calls.example/1.mp3' }, 'transcript');
    accepts(conversationRequest, { ...call, transcript: [], recordingUrl: 'https://example.com/calls/010d38f5ada54e0d.wav', recordingMimeType: 'audio/wav' });
  });

  it('takes at most 10,000 sentences', () => {
    const sentence = { speakerName: 'John', text: 'hello', timestamp: CALL.startMs };
    accepts(conversationRequest, { ...call, transcript: Array.from({ length: LIMITS.transcriptSentences }, () => sentence) });
    rejects(conversationRequest, { ...call, transcript: Array.from({ length: LIMITS.transcriptSentences + 1 }, () => sentence) }, 'transcript');
  });

  it('needs a speaker on each sentence and an absolute timestamp', () => {
    const first = call.transcript?.[0];
    rejects(transcriptSentence, { ...first, speakerId: null, speakerName: null }, 'speakerName', /speakerId or speakerName/);
    accepts(transcriptSentence, { ...first, speakerId: null });
    accepts(transcriptSentence, { ...first, speakerName: null });
    rejects(transcriptSentence, { ...first, text: undefined }, 'text');
    rejects(transcriptSentence, { ...first, timestamp: undefined }, 'timestamp');
  });

  it('keeps sentence timestamps inside [startedAt, endedAt]', () => {
    const at = (ms: number) => ({ ...call, transcript: [{ speakerName: 'John', text: 'hi', timestamp: ms }] });
    accepts(conversationRequest, at(CALL.startMs));
    accepts(conversationRequest, at(CALL.endMs));
    rejects(conversationRequest, at(CALL.startMs - 1), 'transcript.0.timestamp', /outside the conversation window/);
    rejects(conversationRequest, at(CALL.endMs + 1), 'transcript.0.timestamp', /outside the conversation window/);
    // A relative offset (2.114 s into the call) reads as 1970 and is refused.
    rejects(conversationRequest, at(2.114), 'transcript.0.timestamp');
  });

  it('uses startedAt + 10 h as the window when endedAt is omitted', () => {
    const { endedAt: _e, ...open } = call;
    const at = (ms: number) => ({ ...open, transcript: [{ speakerName: 'John', text: 'hi', timestamp: ms }] });
    accepts(conversationRequest, at(CALL.startMs + 10 * HOUR));
    rejects(conversationRequest, at(CALL.startMs + 10 * HOUR + 1), 'transcript.0.timestamp');
  });

  it('wants endedAt after startedAt and within 10 hours', () => {
    const transcript = [{ speakerName: 'John', text: 'hi', timestamp: CALL.startMs }];
    rejects(conversationRequest, { ...call, transcript, endedAt: CALL.startMs }, 'endedAt', /after startedAt/);
    rejects(conversationRequest, { ...call, transcript, endedAt: CALL.startMs - 1000 }, 'endedAt', /after startedAt/);
    accepts(conversationRequest, { ...call, transcript, endedAt: CALL.startMs + 10 * HOUR });
    rejects(conversationRequest, { ...call, transcript, endedAt: CALL.startMs + 10 * HOUR + 1 }, 'endedAt', /within 10 hours/);
    accepts(conversationRequest, { ...call, endedAt: null });
  });
});

describe('MessageRequest', () => {
  const mail = enronMessage();

  it('accepts an Enron e-mail and defaults displayName', () => {
    const parsed = accepts(messageRequest, mail);
    expect(parsed.createdAt).toBe('2001-05-14T23:39:00.000Z');
    const { displayName: _d, ...rest } = mail;
    expect(accepts(messageRequest, rest).displayName).toBe('');
  });

  it('requires createdAt, body, sender and recipients', () => {
    for (const key of ['createdAt', 'body', 'sender', 'recipients'] as const) {
      const copy: Record<string, unknown> = { ...mail };
      delete copy[key];
      rejects(messageRequest, copy, key);
    }
    rejects(messageRequest, { ...mail, sender: { name: 'Phillip K Allen' } }, 'sender');
  });

  it('takes a body of at most 100,000 characters', () => {
    accepts(messageRequest, { ...mail, body: longText(LIMITS.messageBodyChars) });
    rejects(messageRequest, { ...mail, body: longText(LIMITS.messageBodyChars + 1) }, 'body', /100000/);
    accepts(messageRequest, { ...mail, body: '' });
  });

  it('takes 1 to 1000 recipients', () => {
    rejects(messageRequest, { ...mail, recipients: [] }, 'recipients');
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `r${i}@enron.com` }));
    accepts(messageRequest, { ...mail, recipients: many(1000) });
    rejects(messageRequest, { ...mail, recipients: many(1001) }, 'recipients');
  });

  it('checks attachments', () => {
    const file = { name: 'forecast.xls', url: 'https://files.example.com/forecast.xls', mimeType: 'application/vnd.ms-excel', sizeBytes: 23552 };
    accepts(messageRequest, { ...mail, attachments: [file] });
    accepts(attachment, { name: file.name, url: file.url });
    rejects(attachment, { ...file, name: '' }, 'name');
    rejects(attachment, { ...file, url: undefined }, 'url');
    rejects(attachment, { ...file, sizeBytes: 1.5 }, 'sizeBytes');
    rejects(attachment, { ...file, sizeBytes: -1 }, 'sizeBytes');
  });
});

describe('RowRequest', () => {
  it('accepts the CRM pipeline rows, blanks included', () => {
    for (const i of [0, 1, 2]) accepts(rowRequest, dealRow(i));
    expect(accepts(rowRequest, dealRow(0)).createdAt).toBe('2016-10-20T00:00:00.000Z');
  });

  it('has an optional createdAt', () => {
    const { createdAt: _c, ...rest } = dealRow();
    accepts(rowRequest, rest);
  });

  it('needs a UUID objectTypeId and a 1-1000 character name', () => {
    rejects(rowRequest, { ...dealRow(), objectTypeId: 'deal' }, 'objectTypeId');
    rejects(rowRequest, { ...dealRow(), name: '' }, 'name');
    accepts(rowRequest, { ...dealRow(), name: longText(LIMITS.rowName.max) });
    rejects(rowRequest, { ...dealRow(), name: longText(LIMITS.rowName.max + 1) }, 'name');
  });

  it('takes 1 to 50 fields', () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { value: i, fieldType: 'int' }]));
    rejects(rowRequest, { ...dealRow(), fields: {} }, 'fields', /at least 1/);
    accepts(rowRequest, { ...dealRow(), fields: fields(50) });
    rejects(rowRequest, { ...dealRow(), fields: fields(51) }, 'fields', /at most 50/);
  });

  it('needs a value and a known fieldType on each field', () => {
    rejects(rowFieldValue, { fieldType: 'string' }, 'value');
    rejects(rowFieldValue, { value: 'Won', fieldType: 'picklist' }, 'fieldType');
    rejects(rowRequest, { ...dealRow(), fields: { close_value: { value: '1054', fieldType: 'int' } } }, 'fields.close_value.value', /does not match fieldType int/);
  });

  const cases: [string, unknown[], unknown[]][] = [
    ['string', ['Moses Frase', ''], [1054, true, ['a']]],
    ['textarea', ['line one\nline two'], [{}]],
    ['boolean', [true, false], ['true', 1]],
    ['int', [1054, 0, -3], [1054.5, '1054', Number.NaN]],
    ['double', [1100.04, 0, 251], ['1100.04', Number.POSITIVE_INFINITY]],
    ['date', ['2017-03-01'], ['2017-03-01T00:00:00Z', '2017-02-30', '01/03/2017']],
    // date and datetime are distinct types: a date alone is not a datetime value.
    ['datetime', ['2020-05-30T18:12:54.809Z', '2017-03-01T10:00:00+02:00'], ['2017-03-01', '1590862374809', 1590862374809, 'soon']],
    ['list', [['GTX Basic', 'GTX Pro'], []], ['GTX Basic', { 0: 'GTX' }]],
  ];
  for (const [type, good, bad] of cases) {
    it(`matches ${type} values`, () => {
      for (const v of [...good, null]) {
        expect(valueMatchesFieldType(v, type as never), JSON.stringify(v)).toBe(true);
        accepts(rowFieldValue, { value: v, fieldType: type, label: null });
      }
      for (const v of bad) {
        expect(valueMatchesFieldType(v, type as never), String(v)).toBe(false);
        rejects(rowFieldValue, { value: v, fieldType: type }, 'value');
      }
    });
  }
});

describe('UpdateRowRequest', () => {
  it('accepts an empty patch, nulls, and a field deletion', () => {
    accepts(updateRowRequest, {});
    accepts(updateRowRequest, { name: null, public: null, ownerEmails: null, updatedAt: null, fields: null });
    const parsed = accepts(updateRowRequest, {
      updatedAt: '2017-03-01',
      fields: { deal_stage: { value: 'Won', fieldType: 'string' }, engage_date: null },
    });
    expect(parsed.fields?.engage_date).toBeNull();
    expect(parsed.updatedAt).toBe('2017-03-01T00:00:00.000Z');
  });
  it('checks what it is given', () => {
    rejects(updateRowRequest, { name: '' }, 'name');
    rejects(updateRowRequest, { name: longText(1001) }, 'name');
    rejects(updateRowRequest, { ownerEmails: ['Sales agent'] }, 'ownerEmails.0');
    rejects(updateRowRequest, { fields: { close_value: { value: 'lots', fieldType: 'int' } } }, 'fields.close_value.value');
    rejects(updateRowRequest, { updatedAt: 'never' }, 'updatedAt');
  });
});

describe('DocumentRequest', () => {
  const doc = rfcDocument();
  const byUrl = { ...doc, content: undefined, filename: undefined, displayName: undefined, url: 'https://www.rfc-editor.org/rfc/rfc4180.txt' };

  it('accepts a base64 upload and a URL document', () => {
    const parsed = accepts(documentRequest, doc);
    expect(Buffer.from(parsed.content ?? '', 'base64').toString('utf8')).toContain('Comma-Separated Values');
    accepts(documentRequest, byUrl);
    const { createdAt: _c, ...noCreated } = byUrl;
    accepts(documentRequest, noCreated);
  });

  it('defaults contentType to text/plain', () => {
    const { contentType: _ct, ...rest } = doc;
    expect(accepts(documentRequest, rest).contentType).toBe('text/plain');
  });

  it('needs exactly one of url or content', () => {
    rejects(documentRequest, { ...doc, url: byUrl.url }, 'content', /exactly one of url or content/);
    rejects(documentRequest, { ...doc, content: null }, 'url', /exactly one of url or content/);
  });

  it('needs base64 content', () => {
    rejects(documentRequest, { ...doc, content: 'not base64!' }, 'content', /base64/);
    rejects(documentRequest, { ...doc, content: 'YWJj=' }, 'content', /base64/);
    // Line-wrapped base64 (MIME style) is still base64.
    accepts(documentRequest, { ...doc, content: `${'QUJD'.repeat(19)}\n${'QUJD'.repeat(3)}` });
  });

  it('needs a displayName or filename for uploads', () => {
    rejects(documentRequest, { ...doc, displayName: null, filename: null }, 'displayName', /displayName is required/);
    accepts(documentRequest, { ...doc, displayName: null });
    accepts(documentRequest, { ...doc, filename: null });
  });

  it('checks the author', () => {
    rejects(documentRequest, { ...doc, author: { name: 'Y. Shafranovich' } }, 'author');
    accepts(documentRequest, { ...doc, author: null });
  });
});

describe('UpdateDocumentRequest', () => {
  it('accepts metadata-only and single-content patches', () => {
    accepts(updateDocumentRequest, {});
    accepts(updateDocumentRequest, { displayName: 'RFC 4180', public: true, updatedAt: 1590862374 });
    accepts(updateDocumentRequest, { content: 'QUJD', filename: 'rfc4180.txt' });
    accepts(updateDocumentRequest, { url: 'https://www.rfc-editor.org/rfc/rfc4180.txt', content: null });
  });
  it('refuses url and content together, and bad content', () => {
    rejects(updateDocumentRequest, { url: 'https://x.example/a.txt', content: 'QUJD' }, 'content', /at most one of url or content/);
    rejects(updateDocumentRequest, { content: '%%%' }, 'content', /base64/);
    rejects(updateDocumentRequest, { ownerEmails: ['nobody'] }, 'ownerEmails.0');
  });
});

describe('sources', () => {
  it('take a 1-255 character name and displayName', () => {
    accepts(createSourceRequest, { name: 'crm', displayName: 'CRM' });
    accepts(createSourceRequest, { name: longText(255), displayName: longText(255) });
    rejects(createSourceRequest, { name: '', displayName: 'CRM' }, 'name');
    rejects(createSourceRequest, { name: longText(256), displayName: 'CRM' }, 'name');
    rejects(createSourceRequest, { name: 'crm' }, 'displayName');
    accepts(updateSourceRequest, { displayName: 'Maven CRM' });
    rejects(updateSourceRequest, {}, 'displayName');
    rejects(updateSourceRequest, { displayName: longText(256) }, 'displayName');
  });
});

describe('object types', () => {
  it('accept the CRM deal schema; required defaults to false', () => {
    const parsed = accepts(createObjectTypeRequest, dealObjectType());
    expect(parsed.fieldDefinitions.find((f) => f.name === 'product')?.required).toBe(false);
    expect(parsed.fieldDefinitions.find((f) => f.name === 'sales_agent')?.required).toBe(true);
  });

  it('check field definitions', () => {
    rejects(fieldDefinitionRequest, { name: 'close_value', fieldType: 'currency' }, 'fieldType');
    rejects(fieldDefinitionRequest, { name: '', fieldType: 'int' }, 'name');
    rejects(fieldDefinitionRequest, { name: longText(256), fieldType: 'int' }, 'name');
  });

  it('take 1 to 50 field definitions with unique names', () => {
    const defs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, fieldType: 'string' }));
    rejects(createObjectTypeRequest, { ...dealObjectType(), fieldDefinitions: [] }, 'fieldDefinitions');
    accepts(createObjectTypeRequest, { ...dealObjectType(), fieldDefinitions: defs(50) });
    rejects(createObjectTypeRequest, { ...dealObjectType(), fieldDefinitions: defs(51) }, 'fieldDefinitions');
    const dup = [...dealObjectType().fieldDefinitions, { name: 'product', fieldType: 'list' }];
    rejects(createObjectTypeRequest, { ...dealObjectType(), fieldDefinitions: dup }, 'fieldDefinitions.7.name', /duplicate field name "product"/);
  });

  it('need a UUID sourceId and 1-255 character names', () => {
    rejects(createObjectTypeRequest, { ...dealObjectType(), sourceId: 'crm' }, 'sourceId');
    rejects(createObjectTypeRequest, { ...dealObjectType(), name: '' }, 'name');
    rejects(createObjectTypeRequest, { ...dealObjectType(), displayName: longText(256) }, 'displayName');
  });

  it('patch displayName and the whole schema', () => {
    accepts(updateObjectTypeRequest, {});
    accepts(updateObjectTypeRequest, { displayName: null, fieldDefinitions: null });
    accepts(updateObjectTypeRequest, { fieldDefinitions: [{ name: 'close_value', fieldType: 'double' }] });
    rejects(updateObjectTypeRequest, { displayName: '' }, 'displayName');
    rejects(updateObjectTypeRequest, { fieldDefinitions: [] }, 'fieldDefinitions');
    rejects(updateObjectTypeRequest, { fieldDefinitions: [{ name: 'a', fieldType: 'int' }, { name: 'a', fieldType: 'int' }] }, 'fieldDefinitions.1.name');
  });
});

describe('AskRequest', () => {
  it('needs a non-empty message', () => {
    accepts(askRequest, { message: 'What did James Miller ask about?' });
    rejects(askRequest, { message: '' }, 'message');
    rejects(askRequest, {}, 'message');
  });
});

it('fixtures use the shared ids', () => {
  expect(dealRow().objectTypeId).toBe(OBJECT_TYPE_ID);
  expect(harperValleyConversation().sourceId).toBe(SOURCE_ID);
});

describe('strict readings (issue 13)', () => {
  const call = harperValleyConversation();
  const mail = enronMessage();
  const doc = rfcDocument();

  it('refuses null where the spec does not mark a field nullable', () => {
    rejects(conversationRequest, { ...call, displayName: null }, 'displayName');
    rejects(messageRequest, { ...mail, displayName: null }, 'displayName');
    rejects(rowRequest, { ...dealRow(), createdAt: null }, 'createdAt');
    rejects(documentRequest, { ...doc, createdAt: null }, 'createdAt');
    rejects(documentRequest, { ...doc, contentType: null }, 'contentType');
    // Absent stays fine, with the spec's defaults.
    const { displayName: _d, ...noName } = call;
    expect(accepts(conversationRequest, noName).displayName).toBe('');
  });

  it('needs absolute http(s) URLs where the spec says "fetchable URL"', () => {
    const byUrl = { ...doc, content: undefined, url: 'plan.pdf' };
    rejects(documentRequest, byUrl, 'url', /absolute http\(s\) URL/);
    rejects(documentRequest, { ...byUrl, url: 'ftp://files.example/plan.pdf' }, 'url');
    accepts(documentRequest, { ...byUrl, url: 'https://files.example/plan.pdf' });
    rejects(updateDocumentRequest, { url: 'file:///etc/passwd' }, 'url');
    rejects(attachment, { name: 'y.pdf', url: '/x/y.pdf' }, 'url');
    accepts(attachment, { name: 'y.pdf', url: 'http://files.example/x/y.pdf' });
    rejects(conversationRequest, { ...call, recordingUrl: 'not a url' }, 'recordingUrl');
  });

  it('needs MIME types and non-empty content', () => {
    rejects(documentRequest, { ...doc, contentType: 'pdf' }, 'contentType', /MIME type/);
    accepts(documentRequest, { ...doc, contentType: 'text/plain; charset=utf-8' });
    rejects(updateDocumentRequest, { contentType: 'text' }, 'contentType');
    rejects(attachment, { name: 'y.pdf', url: 'https://f.example/y.pdf', mimeType: 'PDF file' }, 'mimeType');
    rejects(conversationRequest, { ...call, recordingMimeType: 'mp3' }, 'recordingMimeType');
    rejects(documentRequest, { ...doc, content: '' }, 'content', /must not be empty/);
    rejects(updateDocumentRequest, { content: '' }, 'content');
  });

  it('refuses a PATCH of what cannot change', () => {
    rejects(updateDocumentRequest, { author: { email: 'a@b.example' } }, 'author', /cannot be changed by PATCH/);
    rejects(updateDocumentRequest, { author: null }, 'author');
    rejects(updateSourceRequest, { displayName: 'CRM', name: 'crm2' }, 'name', /cannot be changed by PATCH/);
  });
});
