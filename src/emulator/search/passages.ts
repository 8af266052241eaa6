/**
 * Splits a record into searchable passages: short enough that the ask
 * assistant can quote the best ones, long enough to carry context.
 */
import type { ConversationData, DocumentData, MessageData, RowData, StoredRecord } from '../store/types.js';

export interface Passage {
  title: string;
  body: string;
}

const TRANSCRIPT_WINDOW = 6;
const TEXT_CHUNK_CHARS = 600;

/** Chunks text on paragraph, then sentence boundaries, at most about TEXT_CHUNK_CHARS each. */
export function chunkText(text: string, max = TEXT_CHUNK_CHARS): string[] {
  const sentences = text
    .replace(/\r\n/g, '\n')
    .split(/(?<=[.!?])\s+|\n{2,}/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const chunks: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current.length > 0 && current.length + sentence.length + 1 > max) {
      chunks.push(current);
      current = '';
    }
    current = current.length > 0 ? `${current} ${sentence}` : sentence;
    while (current.length > max * 2) {
      chunks.push(current.slice(0, max));
      current = current.slice(max);
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * An AI summary object as readable lines, so quotes read as prose rather
 * than JSON: strings as they are, other values as `key: value`.
 */
export function summaryText(value: unknown, key?: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return value.trim() === '' ? [] : [value.trim()];
  if (typeof value !== 'object') return [key ? `${key}: ${String(value)}` : String(value)];
  if (Array.isArray(value)) return value.flatMap((v) => summaryText(v, key));
  return Object.entries(value).flatMap(([k, v]) => summaryText(v, k));
}

function conversationPassages(c: ConversationData): Passage[] {
  const title = c.title ?? '';
  const transcript = c.transcript ?? [];
  const passages: Passage[] = [];
  for (let i = 0; i < transcript.length; i += TRANSCRIPT_WINDOW) {
    const body = transcript
      .slice(i, i + TRANSCRIPT_WINDOW)
      .map((e) => `${e.speaker}: ${e.text}`)
      .join('\n');
    passages.push({ title, body });
  }
  const summary = c.summary ? summaryText(c.summary).join('\n') : '';
  if (summary) passages.push({ title, body: summary });
  if (passages.length === 0) passages.push({ title, body: c.participants.map((p) => p.name ?? p.email ?? '').join(', ') });
  return passages;
}

function messagePassages(m: MessageData): Passage[] {
  const title = m.subject ?? '';
  const chunks = chunkText(m.body);
  return chunks.length > 0 ? chunks.map((body) => ({ title, body })) : [{ title, body: '' }];
}

function rowPassages(r: RowData): Passage[] {
  const body = Object.entries(r.fields)
    .filter(([, f]) => f.value !== null)
    .map(([name, f]) => `${f.label ?? name}: ${typeof f.value === 'string' ? f.value : JSON.stringify(f.value)}`)
    .join('\n');
  return [{ title: r.name, body }];
}

function documentPassages(d: DocumentData): Passage[] {
  const chunks = d.text ? chunkText(d.text) : [];
  return chunks.length > 0 ? chunks.map((body) => ({ title: d.displayName, body })) : [{ title: d.displayName, body: '' }];
}

export function passagesOf(record: StoredRecord): Passage[] {
  switch (record.kind) {
    case 'conversation':
      return conversationPassages(record.data as ConversationData);
    case 'message':
      return messagePassages(record.data as MessageData);
    case 'row':
      return rowPassages(record.data as RowData);
    case 'document':
      return documentPassages(record.data as DocumentData);
  }
}
