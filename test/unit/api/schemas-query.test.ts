import { describe, expect, it } from 'vitest';
import {
  accountListQuery,
  conversationListQuery,
  dealListQuery,
  documentListQuery,
  messageListQuery,
  objectTypeListQuery,
  recordKeyQuery,
  rowListQuery,
  sourceListQuery,
} from '../../../src/api/schemas/query.js';
import { OBJECT_TYPE_ID, SOURCE_ID } from './fixtures.js';
import { accepts, rejects } from './expect-schema.js';

const long = (n: number) => 'x'.repeat(n);

describe('page size', () => {
  const lists = [
    ['conversations', conversationListQuery, 20],
    ['deals', dealListQuery, 20],
    ['accounts', accountListQuery, 20],
    ['messages', messageListQuery, 50],
    ['rows', rowListQuery, 50],
    ['documents', documentListQuery, 50],
  ] as const;

  for (const [name, schema, fallback] of lists) {
    it(`${name}: defaults to ${fallback} and takes 1 to 50`, () => {
      expect(accepts(schema, {}).limit).toBe(fallback);
      expect(accepts(schema, { limit: '1' }).limit).toBe(1);
      expect(accepts(schema, { limit: '50' }).limit).toBe(50);
      expect(accepts(schema, { limit: 7 }).limit).toBe(7);
      rejects(schema, { limit: '0' }, 'limit');
      rejects(schema, { limit: '51' }, 'limit');
      rejects(schema, { limit: '2.5' }, 'limit');
      rejects(schema, { limit: 'ten' }, 'limit');
    });
  }
});

describe('conversation filters', () => {
  it('take ISO bounds, a type, and free-text filters', () => {
    const q = accepts(conversationListQuery, {
      startedAfter: '2020-05-30T00:00:00Z',
      startedBefore: '2020-06-02',
      type: 'EXTERNAL',
      title: 'harper valley',
      attendees: 'enron.com',
      crmName: 'Cancity',
      sourceId: 'gong',
      cursor: 'b3BhcXVl',
    });
    expect(q.type).toBe('EXTERNAL');
    rejects(conversationListQuery, { type: 'external' }, 'type');
    rejects(conversationListQuery, { startedAfter: '1590862374809' }, 'startedAfter', /ISO 8601/);
    rejects(conversationListQuery, { startedBefore: 'yesterday' }, 'startedBefore');
  });
});

describe('deal filters', () => {
  it('read booleans from query strings', () => {
    expect(accepts(dealListQuery, { closed: 'true' }).closed).toBe(true);
    expect(accepts(dealListQuery, { closed: '1' }).closed).toBe(true);
    expect(accepts(dealListQuery, { closed: 'false' }).closed).toBe(false);
    expect(accepts(dealListQuery, { closed: '0' }).closed).toBe(false);
    expect(accepts(dealListQuery, { closed: false }).closed).toBe(false);
    expect(accepts(dealListQuery, {}).closed).toBeUndefined();
    rejects(dealListQuery, { closed: 'yes' }, 'closed');
  });

  it('read amounts as numbers and dates as ISO', () => {
    const q = accepts(dealListQuery, { amountMin: '50', amountMax: '4514.5', closeDateAfter: '2017-03-01', lastActivityBefore: '2017-12-31T23:59:59Z' });
    expect([q.amountMin, q.amountMax]).toEqual([50, 4514.5]);
    rejects(dealListQuery, { amountMin: 'cheap' }, 'amountMin');
    rejects(dealListQuery, { closeDateBefore: '03/01/2017' }, 'closeDateBefore');
    rejects(dealListQuery, { lastActivityAfter: 'soon' }, 'lastActivityAfter');
  });
});

describe('other list filters', () => {
  it('accounts take ISO created and activity bounds', () => {
    accepts(accountListQuery, { name: 'Cancity', website: 'cancity', owner: 'Moses', createdAfter: '2016-10-20', lastActivityAfter: '2017-01-01T00:00:00Z' });
    rejects(accountListQuery, { createdBefore: '2017' }, 'createdBefore');
    rejects(accountListQuery, { lastActivityBefore: 'never' }, 'lastActivityBefore');
  });

  it('messages take ISO created bounds', () => {
    accepts(messageListQuery, { sourceId: 'gmail', participantEmail: 'phillip.allen@enron.com', createdAfter: '2001-05-14T00:00:00-07:00' });
    rejects(messageListQuery, { createdAfter: 'Mon, 14 May 2001 16:39:00 -0700' }, 'createdAfter');
  });

  it('rows take a UUID object type and a name filter up to 1000 characters', () => {
    accepts(rowListQuery, { objectTypeId: OBJECT_TYPE_ID, sourceId: SOURCE_ID, name: long(1000), remoteId: '1C1I7A6R' });
    rejects(rowListQuery, { name: long(1001) }, 'name');
    rejects(rowListQuery, { objectTypeId: 'deal' }, 'objectTypeId');
    rejects(rowListQuery, { createdBefore: '20170301' }, 'createdBefore');
  });

  it('documents take a name filter up to 255 characters', () => {
    accepts(documentListQuery, { name: long(255), sourceId: 'chat_upload' });
    rejects(documentListQuery, { name: long(256) }, 'name');
  });

  it('sources take a name filter up to 255, object types a UUID source', () => {
    accepts(sourceListQuery, {});
    accepts(sourceListQuery, { name: long(255) });
    rejects(sourceListQuery, { name: long(256) }, 'name');
    accepts(objectTypeListQuery, { sourceId: SOURCE_ID });
    rejects(objectTypeListQuery, { sourceId: 'crm' }, 'sourceId');
  });
});

describe('numbers in query strings', () => {
  it('are decimal digits, nothing JavaScript would also read as a number', () => {
    expect(accepts(dealListQuery, { limit: '7', amountMin: '-2.5' })).toMatchObject({ limit: 7, amountMin: -2.5 });
    rejects(dealListQuery, { limit: '0x10' }, 'limit', /integer/);
    rejects(dealListQuery, { limit: '1e1' }, 'limit');
    rejects(dealListQuery, { amountMin: '' }, 'amountMin', /decimal number/);
    rejects(dealListQuery, { amountMax: 'Infinity' }, 'amountMax');
  });
});

describe('sourceId filters', () => {
  it('take a UUID or one of the resource\'s native strings, nothing else', () => {
    accepts(conversationListQuery, { sourceId: SOURCE_ID });
    accepts(conversationListQuery, { sourceId: 'zoom_phone' });
    rejects(conversationListQuery, { sourceId: 'gmail' }, 'sourceId', /source UUID or one of service, gong/);
    accepts(messageListQuery, { sourceId: 'hubspot_crm' });
    rejects(messageListQuery, { sourceId: 'gong' }, 'sourceId');
    accepts(documentListQuery, { sourceId: 'mailbox_attachment' });
    rejects(documentListQuery, { sourceId: 'google_drive' }, 'sourceId');
    rejects(rowListQuery, { sourceId: 'gong' }, 'sourceId', /must be a source UUID; found "gong"/);
  });
});

describe('record key', () => {
  it('needs a remoteId and a UUID sourceId', () => {
    accepts(recordKeyQuery, { remoteId: '1C1I7A6R', sourceId: SOURCE_ID });
    rejects(recordKeyQuery, { sourceId: SOURCE_ID }, 'remoteId');
    rejects(recordKeyQuery, { remoteId: '', sourceId: SOURCE_ID }, 'remoteId');
    rejects(recordKeyQuery, { remoteId: '1C1I7A6R' }, 'sourceId');
    rejects(recordKeyQuery, { remoteId: '1C1I7A6R', sourceId: 'crm' }, 'sourceId');
  });
});
