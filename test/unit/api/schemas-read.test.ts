import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../../src/api/endpoints.js';
import type { EndpointName } from '../../../src/api/endpoints.js';
import {
  askRun,
  conversationDetail,
  conversationListItem,
  conversationPage,
  dealPage,
  fieldValueResponse,
  pagination,
  participant,
  row,
} from '../../../src/api/schemas/index.js';
import { CALL, OBJECT_TYPE_ID, SOURCE_ID } from './fixtures.js';
import { accepts, rejects } from './expect-schema.js';

const ORG_ID = '9d2f4c1a-7b3e-4f5a-8c6d-1e2f3a4b5c6d';
const CONVERSATION_ID = '3c9a1f52-6d0e-4b7a-9e8f-2a1b3c4d5e6f';
const MESSAGE_ID = '7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908';
const ROW_ID = '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d';
const THREAD_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const RUN_ID = '12345678-1234-4234-8234-123456789abc';
const page = (nextCursor: string | null, hasMore: boolean) => ({ nextCursor, hasMore });

const conversationItem = {
  conversationId: CONVERSATION_ID,
  sourceId: SOURCE_ID,
  title: 'Harper Valley National Bank: check balance (savings)',
  startTime: new Date(CALL.startMs).toISOString(),
  endTime: new Date(CALL.endMs).toISOString(),
  type: 'EXTERNAL',
  participants: [
    { name: 'John', email: null, attended: true },
    { name: 'James Miller', email: null },
  ],
  crm: { id: '1C1I7A6R', name: 'Cancity', type: 'opportunity' },
};

const deal = {
  dealId: '1C1I7A6R',
  name: 'Cancity - GTX Plus Basic',
  accountName: 'Cancity',
  stage: 'Won',
  pipeline: 'Sales',
  amount: 1054,
  closeDate: '2017-03-01T00:00:00Z',
  closed: true,
  createdDate: '2016-10-20T00:00:00Z',
  lastActivityDate: null,
  owner: { name: 'Moses Frase', email: null },
};

const account = {
  accountId: 'Cancity',
  name: 'Cancity',
  website: null,
  owner: null,
  createdDate: null,
  lastActivityDate: '2017-03-01T00:00:00Z',
  latestDeal: { dealId: 'EC4QE1BX', name: 'Cancity - MG Special', stage: 'Won', amount: 50, closeDate: '2017-03-07T00:00:00Z' },
};

const message = {
  messageId: MESSAGE_ID,
  sourceId: SOURCE_ID,
  remoteId: '<18782981.1075855378110.JavaMail.evans@thyme>',
  threadId: null,
  subject: 'Re: forecast',
  sender: { name: 'Phillip K Allen', email: 'phillip.allen@enron.com' },
  recipients: [{ name: 'Tim Belden', email: 'tim.belden@enron.com' }],
  bodyPreview: 'Here is our forecast',
  createdAt: '2001-05-14T23:39:00Z',
};

const rowItem = {
  rowId: ROW_ID,
  sourceId: SOURCE_ID,
  objectTypeId: OBJECT_TYPE_ID,
  objectTypeName: 'deal',
  remoteId: '1C1I7A6R',
  name: 'Cancity - GTX Plus Basic',
  fields: {
    deal_stage: { value: 'Won', fieldType: 'string', label: 'Deal stage' },
    close_value: { value: 1054, fieldType: 'int', label: null },
    close_date: { value: '2017-03-01', fieldType: 'date', label: 'Close date' },
  },
  createdAt: '2016-10-20T00:00:00Z',
  updatedAt: null,
};

const documentItem = {
  id: '4f3e2d1c-0b9a-4876-a543-210fedcba987',
  displayName: 'RFC 4180: Common Format and MIME Type for CSV Files',
  sourceId: SOURCE_ID,
  remoteId: 'rfc4180.txt',
  url: null,
  contentType: 'text/plain',
  createdAt: null,
  updatedAt: null,
};

const source = { id: SOURCE_ID, name: 'crm', displayName: 'CRM', createdAt: '2024-05-01T09:00:00Z', updatedAt: '2024-05-01T09:00:00Z' };

const objectType = {
  id: OBJECT_TYPE_ID,
  sourceId: SOURCE_ID,
  name: 'deal',
  displayName: 'Deal',
  fieldDefinitions: [
    { name: 'deal_stage', fieldType: 'string', label: 'Deal stage', required: true },
    { name: 'close_value', fieldType: 'int', label: null, required: false },
  ],
  createdAt: '2024-05-01T09:00:00Z',
  updatedAt: '2024-05-02T10:30:00Z',
};

const recordResponse = { status: 'created', recordId: ROW_ID, id: '1C1I7A6R', sourceId: SOURCE_ID };
const deletedRecord = { status: 'deleted', recordId: ROW_ID, id: '1C1I7A6R', sourceId: SOURCE_ID, deletedAt: '2024-05-03T12:00:00Z' };
const completedRun = {
  threadId: THREAD_ID,
  runId: RUN_ID,
  status: 'completed',
  output: 'James Miller called to check his savings balance ($106).',
  generatedAt: 1714737600000,
};

/** A realistic success body for every endpoint of the table. */
const SAMPLES: Record<EndpointName, unknown> = {
  health: { status: 'ok', org_id: ORG_ID, scopes: ['read', 'ingest', 'ask_assistant'] },
  ask: completedRun,
  pollAsk: { threadId: THREAD_ID, runId: RUN_ID, status: 'running' },
  listConversations: { conversations: [conversationItem], pagination: page('b3BhcXVl', true) },
  getConversation: {
    ...conversationItem,
    category: 'customer_support',
    summary: { overview: 'Balance check', actionItems: [], sentiment: 0.8, resolved: true, meta: { lang: 'en' } },
    transcript: [
      { speaker: 'John', text: CALL.segments[0].text, startTime: 2.114, endTime: 6.794 },
      { speaker: 'James Miller', text: CALL.segments[1].text, startTime: 7.854, endTime: 12.864 },
    ],
    recordings: { videoUrl: null, videoStreamUrl: null, audioUrl: 'https://recordings.example.com/a.wav?sig=x', audioStreamUrl: null },
  },
  createConversation: recordResponse,
  deleteConversation: deletedRecord,
  listDeals: { deals: [deal], pagination: page(null, false) },
  getDeal: {
    ...deal,
    summary: null,
    crmAutofill: { nextStep: 'renewal call' },
    contacts: [{ name: 'Moses Frase', email: null, title: 'Sales agent', phone: null }],
  },
  listAccounts: { accounts: [account], pagination: page(null, false) },
  getAccount: { ...account, contacts: [], syncedCrmFields: { Sector: 'retail', Employees: 2448, 'Year established': 2001 } },
  listMessages: { messages: [message], pagination: page(null, false) },
  getMessage: {
    ...message,
    body: 'Here is our forecast\n\n -----Original Message-----',
    attachments: [{ id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0', filename: 'forecast.xls', contentType: 'application/vnd.ms-excel', size: 23552 }],
  },
  createMessage: recordResponse,
  deleteMessage: deletedRecord,
  listRows: { rows: [rowItem], pagination: page(null, false) },
  getRow: rowItem,
  createRow: recordResponse,
  updateRow: { ...recordResponse, status: 'updated' },
  deleteRow: deletedRecord,
  listDocuments: { documents: [documentItem, { ...documentItem, sourceId: 'chat_upload', url: null }], pagination: page(null, false) },
  getDocument: { ...documentItem, url: 'https://www.rfc-editor.org/rfc/rfc4180.txt' },
  createDocument: recordResponse,
  updateDocument: { ...recordResponse, status: 'updated' },
  deleteDocument: deletedRecord,
  createSource: source,
  listSources: { sources: [source] },
  getSource: source,
  updateSource: { ...source, displayName: 'Maven CRM' },
  deleteSource: { status: 'deleted', id: SOURCE_ID },
  createObjectType: objectType,
  listObjectTypes: { objectTypes: [objectType] },
  getObjectType: objectType,
  updateObjectType: objectType,
  deleteObjectType: { status: 'deleted', id: OBJECT_TYPE_ID },
};

describe('every endpoint response', () => {
  for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
    it(`${name}: a realistic body parses`, () => {
      accepts(ENDPOINTS[name].response, SAMPLES[name]);
    });
  }

  it('rejects a body missing its required fields', () => {
    for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
      expect(ENDPOINTS[name].response.safeParse({}).success, name).toBe(false);
    }
  });
});

describe('read shapes', () => {
  it('keep fields the service adds later', () => {
    const parsed = accepts(conversationListItem, { ...conversationItem, language: 'en' });
    expect(parsed).toHaveProperty('language', 'en');
    expect(accepts(conversationDetail, { ...conversationItem, sentiment: 0.5 })).toHaveProperty('sentiment', 0.5);
  });

  it('default participant attended to true and pagination to no more', () => {
    expect(accepts(participant, { name: 'James Miller' }).attended).toBe(true);
    expect(accepts(pagination, {})).toEqual({ nextCursor: null, hasMore: false });
    expect(accepts(dealPage, { deals: [], pagination: {} }).pagination.hasMore).toBe(false);
  });

  it('accept legacy categories and native source strings', () => {
    accepts(conversationDetail, { ...conversationItem, category: 'investment_team', sourceId: 'gong', crm: null });
    accepts(conversationDetail, { ...conversationItem, sourceId: null, title: null, category: null, summary: null, transcript: null, recordings: null });
  });

  it('reject wrong types and enums', () => {
    rejects(conversationListItem, { ...conversationItem, type: 'external' }, 'type');
    rejects(conversationListItem, { ...conversationItem, conversationId: '42' }, 'conversationId');
    rejects(conversationListItem, { ...conversationItem, crm: { type: 'company' } }, 'crm.type');
    rejects(conversationPage, { conversations: [conversationItem], pagination: { hasMore: 'yes' } }, 'pagination.hasMore');
    rejects(row, { ...rowItem, fields: { x: { value: 1, fieldType: 'currency' } } }, 'fields.x.fieldType');
    rejects(fieldValueResponse, { value: 1 }, 'fieldType');
    rejects(askRun, { ...completedRun, status: 'done' }, 'status');
    rejects(askRun, { ...completedRun, generatedAt: '2024-05-03' }, 'generatedAt');
  });

  it('accept failed and stopped ask runs with an optional error', () => {
    accepts(askRun, { threadId: THREAD_ID, runId: RUN_ID, status: 'failed', error: 'no records matched' });
    accepts(askRun, { threadId: THREAD_ID, runId: RUN_ID, status: 'stopped' });
  });
});
