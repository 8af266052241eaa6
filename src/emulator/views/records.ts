/**
 * Stored records → the read shapes of the spec (`src/api/schemas/read.ts`).
 * Recording URLs are built by the caller-supplied `mediaUrl`, so views stay pure.
 */
import type {
  ConversationDetail,
  ConversationListItem,
  DocumentItem,
  MessageDetail,
  MessageListItem,
  Row,
} from '../../api/schemas/read.js';
import type {
  ConversationData,
  DocumentData,
  MessageData,
  ObjectTypeEntity,
  RowData,
  StoredRecord,
} from '../store/types.js';

export const BODY_PREVIEW_CHARS = 200;

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * The first `count` characters (code points) of `text`. Cutting at UTF-16
 * units could end inside an emoji and leave half a surrogate pair, which is
 * not valid UTF-8 and which strict JSON parsers reject.
 */
export function leadingChars(text: string, count: number): string {
  if (text.length <= count) return text;
  let end = 0;
  for (let chars = 0; chars < count && end < text.length; chars++) {
    const pair = isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1));
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

export type MediaUrlFn = (mediaId: string, disposition: 'download' | 'stream') => string;

export function conversationListItem(record: StoredRecord<'conversation'>): ConversationListItem {
  const c = record.data;
  return {
    conversationId: record.id,
    sourceId: record.sourceId,
    title: c.title,
    startTime: c.startTime,
    endTime: c.endTime,
    type: c.type,
    participants: c.participants.map((p) => ({ name: p.name, email: p.email, attended: p.attended })),
    crm: c.crm,
  };
}

function recordingsOf(c: ConversationData, mediaUrl: MediaUrlFn): ConversationDetail['recordings'] {
  if (!c.recordings || (!c.recordings.audio && !c.recordings.video)) return null;
  const { audio, video } = c.recordings;
  return {
    videoUrl: video ? mediaUrl(video, 'download') : null,
    videoStreamUrl: video ? mediaUrl(video, 'stream') : null,
    audioUrl: audio ? mediaUrl(audio, 'download') : null,
    audioStreamUrl: audio ? mediaUrl(audio, 'stream') : null,
  };
}

export function conversationDetail(record: StoredRecord<'conversation'>, mediaUrl: MediaUrlFn): ConversationDetail {
  const c = record.data;
  return {
    ...conversationListItem(record),
    category: c.category,
    summary: c.summary,
    transcript: c.transcript,
    recordings: recordingsOf(c, mediaUrl),
  };
}

export function messageListItem(record: StoredRecord<'message'>): MessageListItem {
  const m: MessageData = record.data;
  return {
    messageId: record.id,
    sourceId: record.sourceId,
    remoteId: record.remoteId,
    threadId: m.threadId,
    subject: m.subject,
    sender: m.sender,
    recipients: m.recipients,
    bodyPreview: leadingChars(m.body, BODY_PREVIEW_CHARS),
    createdAt: m.createdAt,
  };
}

export function messageDetail(record: StoredRecord<'message'>): MessageDetail {
  return {
    ...messageListItem(record),
    body: record.data.body,
    attachments: record.data.attachments.map((a) => ({ id: a.id, filename: a.filename, contentType: a.contentType, size: a.size })),
  };
}

export function rowView(record: StoredRecord<'row'>, objectType: ObjectTypeEntity | undefined): Row {
  const r: RowData = record.data;
  return {
    rowId: record.id,
    sourceId: record.sourceId,
    objectTypeId: record.objectTypeId ?? '',
    objectTypeName: objectType?.name ?? '',
    remoteId: record.remoteId,
    name: r.name,
    fields: Object.fromEntries(
      Object.entries(r.fields).map(([name, f]) => [name, { value: f.value, fieldType: f.fieldType, label: f.label }]),
    ),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function documentView(record: StoredRecord<'document'>): DocumentItem {
  const d: DocumentData = record.data;
  return {
    id: record.id,
    displayName: d.displayName,
    sourceId: record.sourceId,
    remoteId: record.remoteId,
    url: d.url,
    contentType: d.contentType,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
