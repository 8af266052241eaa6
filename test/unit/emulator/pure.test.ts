import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../../src/emulator/store/cursor.js';
import { FaultInjector, seededRandom } from '../../../src/emulator/faults.js';
import { parseRange } from '../../../src/emulator/media/serve.js';
import { conversationType, transcriptEntries } from '../../../src/emulator/ingest/conversation.js';
import { mergeRowFields, rowFields } from '../../../src/emulator/ingest/row.js';
import { defaultDisplayName, extractText, filenameOfUrl } from '../../../src/emulator/ingest/document.js';
import { pickLatestDeal } from '../../../src/emulator/views/resources.js';
import { matchExpression, searchTerms } from '../../../src/emulator/search/query.js';
import { chunkText } from '../../../src/emulator/search/passages.js';
import { excerpt } from '../../../src/emulator/ask/answer.js';
import { stableUuid } from '../../../src/emulator/app.js';
import { ApiError } from '../../../src/emulator/http/errors.js';
import type { DealData, ObjectTypeEntity } from '../../../src/emulator/store/types.js';

describe('cursors', () => {
  it('round-trip and refuse tampering or another list', () => {
    const c = encodeCursor('row', { sortMs: 1700000000000, id: 'abc' });
    expect(decodeCursor('row', c)).toEqual({ sortMs: 1700000000000, id: 'abc' });
    expect(() => decodeCursor('message', c)).toThrow(InvalidCursorError);
    expect(() => decodeCursor('row', 'x!y')).toThrow(InvalidCursorError);
    expect(() => decodeCursor('row', Buffer.from('["row","1","a"]').toString('base64url'))).toThrow(InvalidCursorError);
  });
});

describe('faults', () => {
  it('seeded RNG repeats', () => {
    const a = seededRandom(5);
    const b = seededRandom(5);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });

  it('token bucket refills over time', () => {
    const f = new FaultInjector({ rateLimitPerSecond: 2, rateLimitBurst: 2 });
    expect(f.decide('k', 0).kind).toBe('pass');
    expect(f.decide('k', 0).kind).toBe('pass');
    expect(f.decide('k', 0).kind).toBe('throttle');
    expect(f.decide('other', 0).kind).toBe('pass');
    expect(f.decide('k', 500).kind).toBe('pass');
    expect(f.decide('k', 500).kind).toBe('throttle');
  });

  it('passes everything without options', () => {
    const f = new FaultInjector();
    for (let i = 0; i < 20; i++) expect(f.decide('k')).toEqual({ kind: 'pass', latencyMs: 0 });
  });
});

describe('Range parsing', () => {
  it.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=95-200', 100, { start: 95, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=5-2', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, undefined],
    [undefined, 100, undefined],
  ])('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('conversation mapping', () => {
  it('types by participant domains', () => {
    expect(conversationType([{ email: 'a@x.com' }, { email: 'b@X.com' }, { email: null }])).toBe('INTERNAL');
    expect(conversationType([{ email: 'a@x.com' }, { email: 'b@y.com' }])).toBe('EXTERNAL');
    expect(conversationType([{ email: null }])).toBe('EXTERNAL');
  });

  it('turns absolute timestamps into sorted offsets', () => {
    const start = Date.parse('2024-01-01T00:00:00Z');
    const entries = transcriptEntries(
      [
        { speakerId: 's2', text: 'second', timestamp: '2024-01-01T00:00:10.000Z' },
        { speakerName: 'Ann', speakerId: 's1', text: 'first', timestamp: '2024-01-01T00:00:02.500Z' },
      ],
      start,
    );
    expect(entries).toEqual([
      { speaker: 'Ann', text: 'first', startTime: 2.5, endTime: 10 },
      { speaker: 's2', text: 'second', startTime: 10, endTime: 10 },
    ]);
  });
});

describe('row fields', () => {
  const type: ObjectTypeEntity = {
    id: 't', orgId: 'o', sourceId: 's', name: 'deal', displayName: 'Deal', createdMs: 0, updatedMs: 0, deletedMs: null,
    fieldDefinitions: [
      { name: 'amount', fieldType: 'double', label: 'Amount', required: true },
      { name: 'note', fieldType: 'textarea', label: null, required: false },
    ],
  };
  const field = (e: unknown) => (e instanceof ApiError ? e.field : 'not an ApiError');

  it('takes labels from the definition unless given', () => {
    expect(rowFields({ amount: { value: 1, fieldType: 'double', label: 'Total' } }, type).amount?.label).toBe('Total');
    expect(rowFields({ amount: { value: 1, fieldType: 'double' } }, type).amount?.label).toBe('Amount');
  });

  it('merges per RFC 7396', () => {
    const current = rowFields({ amount: { value: 1, fieldType: 'double' }, note: { value: 'n', fieldType: 'textarea' } }, type);
    expect(Object.keys(mergeRowFields(current, { note: null }, type))).toEqual(['amount']);
    expect(mergeRowFields(current, { amount: { value: 2, fieldType: 'double' } }, type).amount?.value).toBe(2);
    expect(mergeRowFields(current, {}, type)).toEqual(current);
    try {
      mergeRowFields(current, { amount: null }, type);
      expect.unreachable();
    } catch (e) {
      expect(field(e)).toBe('fields.amount');
    }
  });
});

describe('documents', () => {
  it('derives names and text', () => {
    expect(filenameOfUrl('https://x.com/a/b%20c.pdf?q=1')).toBe('b c.pdf');
    expect(filenameOfUrl('https://x.com/')).toBeUndefined();
    expect(defaultDisplayName({ url: 'https://x.com/' }, 'remote-1')).toBe('remote-1');
    expect(defaultDisplayName({ displayName: 'D', filename: 'f.txt' }, 'r')).toBe('D');
    expect(extractText(Buffer.from('<p>Hi <b>there</b></p><script>x()</script>').toString('base64'), 'text/html')?.replace(/\s+/g, ' ').trim()).toBe('Hi there');
    expect(extractText(Buffer.from([0, 1, 2]).toString('base64'), 'application/pdf')).toBeNull();
  });
});

describe('latest deal', () => {
  const deal = (dealId: string, closed: boolean | null, createdDate: string | null): DealData => ({
    dealId, closed, createdDate, name: null, accountId: null, accountName: null, stage: null, pipeline: null, amount: null,
    closeDate: null, lastActivityDate: null, owner: null, summary: null, crmAutofill: null, contacts: [],
  });
  it('prefers the newest open deal, then the newest closed one', () => {
    expect(pickLatestDeal([deal('a', true, '2024-05-01'), deal('b', false, '2024-01-01'), deal('c', null, '2024-02-01')])?.dealId).toBe('c');
    expect(pickLatestDeal([deal('a', true, '2024-05-01'), deal('b', true, '2024-06-01')])?.dealId).toBe('b');
    expect(pickLatestDeal([])).toBeUndefined();
  });
});

describe('search helpers', () => {
  it('keeps meaningful words and quotes them for FTS5', () => {
    expect(searchTerms("What is Initech's onboarding timeline?")).toEqual(['initech', 'onboarding', 'timeline']);
    expect(searchTerms('the a')).toEqual(['the']);
    expect(matchExpression(['say "hi"', 'x'])).toBe('"say ""hi""" OR "x"');
    expect(matchExpression([])).toBeUndefined();
  });

  it('chunks text and picks the best excerpt', () => {
    const chunks = chunkText('One. Two. Three.'.repeat(200), 300);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((c) => c.length <= 600)).toBe(true);
    expect(excerpt('Weather is fine.\nThe renewal price is 40k. Other stuff follows here and there.', ['renewal', 'price'])).toMatch(/^The renewal price is 40k\./);
  });

  it('derives stable UUID-shaped ids', () => {
    expect(stableUuid('a', 'b')).toBe(stableUuid('a', 'b'));
    expect(stableUuid('a', 'b')).not.toBe(stableUuid('ab'));
    expect(stableUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
