/**
 * Realistic request bodies built from the shared datasets (copied here so the
 * tests do not depend on the dataset folder being present):
 * - Harper Valley call 010d38f5ada54e0d (Apache-2.0, Gridspace): agent John,
 *   caller James Miller, epoch-millisecond timestamps, human transcripts;
 * - Maven Analytics CRM sales pipeline rows (public domain, fictitious).
 */
import type { ConversationRequest, CreateObjectTypeRequest, DocumentRequest, MessageRequest, RowRequest } from '../../../src/api/schemas/index.js';

export const SOURCE_ID = '6f3c1e2a-9b4d-4c8e-a1f2-3d4e5f607182';
export const OBJECT_TYPE_ID = '0b8e7c6d-5a4f-4e3d-9c2b-1a0f9e8d7c6b';

/** Call 010d38f5ada54e0d: start_time_ms and end_time_ms from its metadata. */
export const CALL = {
  sid: '010d38f5ada54e0d',
  startMs: 1590862374809,
  endMs: 1590862410240,
  segments: [
    { role: 'agent', at: 1590862376923, text: 'hello this is harper valley national bank my name is john how can i help you today' },
    { role: 'caller', at: 1590862382663, text: '[noise] hi my name is james miller i would like to check my account balance' },
    { role: 'agent', at: 1590862388823, text: '<unk> of course and which account would you like to check' },
    { role: 'caller', at: 1590862392693, text: 'my savings account' },
    { role: 'agent', at: 1590862395583, text: 'alright and your savings account balance is a hundred and six dollars is there anything else i can help you with' },
    { role: 'caller', at: 1590862402423, text: 'no thank you that was it' },
    { role: 'agent', at: 1590862405443, text: 'thank you for calling you have a great day' },
    { role: 'caller', at: 1590862409223, text: 'you too' },
  ],
} as const;

const speakers = { agent: { id: '53', name: 'John' }, caller: { id: '56', name: 'James Miller' } } as const;

export function harperValleyConversation(): ConversationRequest {
  return {
    id: CALL.sid,
    sourceId: SOURCE_ID,
    public: true,
    createdAt: CALL.startMs,
    startedAt: CALL.startMs,
    endedAt: CALL.endMs,
    displayName: 'Harper Valley National Bank: check balance (savings)',
    participants: [
      { id: speakers.agent.id, name: speakers.agent.name },
      { id: speakers.caller.id, name: speakers.caller.name },
    ],
    transcript: CALL.segments.map((s) => ({
      speakerId: speakers[s.role].id,
      speakerName: speakers[s.role].name,
      text: s.text,
      timestamp: s.at,
    })),
  };
}

/** sales_pipeline.csv rows: a won deal, a lost one (close_value 0), a prospecting one (blank dates). */
export const PIPELINE = [
  { opportunity_id: '1C1I7A6R', sales_agent: 'Moses Frase', product: 'GTX Plus Basic', account: 'Cancity', deal_stage: 'Won', engage_date: '2016-10-20', close_date: '2017-03-01', close_value: 1054 },
  { opportunity_id: 'KWVA7VR1', sales_agent: 'Gladys Colclough', product: 'GTXPro', account: 'Genco Pura Olive Oil Company', deal_stage: 'Lost', engage_date: '2016-11-04', close_date: '2017-03-18', close_value: 0 },
  { opportunity_id: '6CWZFOHJ', sales_agent: 'Anna Snelling', product: 'GTX Basic', account: 'Green-Plus', deal_stage: 'Prospecting', engage_date: null, close_date: null, close_value: null },
] as const;

export function dealObjectType(): CreateObjectTypeRequest {
  return {
    sourceId: SOURCE_ID,
    name: 'deal',
    displayName: 'Deal',
    fieldDefinitions: [
      { name: 'sales_agent', fieldType: 'string', label: 'Sales agent', required: true },
      { name: 'product', fieldType: 'string', label: 'Product' },
      { name: 'account', fieldType: 'string', label: 'Account' },
      { name: 'deal_stage', fieldType: 'string', label: 'Deal stage', required: true },
      { name: 'engage_date', fieldType: 'date', label: 'Engage date' },
      { name: 'close_date', fieldType: 'date', label: 'Close date' },
      { name: 'close_value', fieldType: 'int', label: 'Close value (USD)' },
    ],
  };
}

export function dealRow(index = 0): RowRequest {
  const d = PIPELINE[index] ?? PIPELINE[0];
  return {
    id: d.opportunity_id,
    sourceId: SOURCE_ID,
    objectTypeId: OBJECT_TYPE_ID,
    public: true,
    name: `${d.account} - ${d.product}`,
    createdAt: d.engage_date ?? undefined,
    fields: {
      sales_agent: { value: d.sales_agent, fieldType: 'string' },
      product: { value: d.product, fieldType: 'string' },
      account: { value: d.account, fieldType: 'string' },
      deal_stage: { value: d.deal_stage, fieldType: 'string', label: 'Deal stage' },
      engage_date: { value: d.engage_date, fieldType: 'date' },
      close_date: { value: d.close_date, fieldType: 'date' },
      close_value: { value: d.close_value, fieldType: 'int' },
    },
  };
}

/** An Enron-style e-mail (allen-p sent mail). */
export function enronMessage(): MessageRequest {
  return {
    id: '<18782981.1075855378110.JavaMail.evans@thyme>',
    sourceId: SOURCE_ID,
    ownerEmails: ['phillip.allen@enron.com'],
    // The mbox Date header (Mon, 14 May 2001 16:39:00 -0700) as ISO 8601; RFC 822 dates are not accepted.
    createdAt: '2001-05-14T16:39:00-07:00',
    displayName: 'Re: forecast',
    body: 'Here is our forecast',
    sender: { email: 'phillip.allen@enron.com', name: 'Phillip K Allen' },
    recipients: [{ email: 'tim.belden@enron.com', name: 'Tim Belden' }],
    threadId: null,
  };
}

/** RFC 4180's abstract as a content upload. */
export function rfcDocument(): DocumentRequest {
  const text = 'This RFC documents the format used for Comma-Separated Values (CSV) files and registers the associated MIME type "text/csv".';
  return {
    id: 'rfc4180.txt',
    sourceId: SOURCE_ID,
    public: true,
    displayName: 'RFC 4180: Common Format and MIME Type for CSV Files',
    content: Buffer.from(text, 'utf8').toString('base64'),
    filename: 'rfc4180.txt',
    contentType: 'text/plain',
    author: { email: 'yakov.shafranovich@solidmatrix.com', name: 'Y. Shafranovich' },
  };
}
