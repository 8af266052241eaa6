/** Test helpers: a started emulator and a tiny fetch wrapper (deliberately not the ferry client). */
import { randomUUID } from 'node:crypto';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke into JSON bodies freely
  body: any;
}

export interface Api {
  emulator: RunningEmulator;
  key: string;
  call(method: string, path: string, body?: unknown, init?: { key?: string | null; headers?: Record<string, string> }): Promise<Reply>;
  get(path: string, key?: string | null): Promise<Reply>;
  post(path: string, body: unknown, key?: string | null): Promise<Reply>;
  patch(path: string, body: unknown, key?: string | null): Promise<Reply>;
  del(path: string, key?: string | null): Promise<Reply>;
}

export function apiFor(emulator: RunningEmulator, key: string): Api {
  const call: Api['call'] = async (method, path, body, init = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    const k = init.key === undefined ? key : init.key;
    if (k !== null) headers.authorization = `Bearer ${k}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${emulator.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // keep text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    emulator,
    key,
    call,
    get: (path, k) => call('GET', path, undefined, { key: k }),
    post: (path, body, k) => call('POST', path, body, { key: k }),
    patch: (path, body, k) => call('PATCH', path, body, { key: k }),
    del: (path, k) => call('DELETE', path, undefined, { key: k }),
  };
}

export async function startApi(options: EmulatorOptions = {}): Promise<Api> {
  const emulator = await startEmulator({ askDelayMs: 20, ...options });
  if (!emulator.devKey) throw new Error('expected a dev key');
  return apiFor(emulator, emulator.devKey);
}

export async function createSource(api: Api, name = `src-${randomUUID().slice(0, 8)}`): Promise<string> {
  const res = await api.post('/v1/sources', { name, displayName: name.toUpperCase() });
  if (res.status !== 201) throw new Error(`source: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function createObjectType(api: Api, sourceId: string, name = 'deal'): Promise<string> {
  const res = await api.post('/v1/object-types', {
    sourceId,
    name,
    displayName: 'Deal',
    fieldDefinitions: [
      { name: 'amount', fieldType: 'double', label: 'Amount', required: true },
      { name: 'stage', fieldType: 'string' },
      { name: 'closed', fieldType: 'boolean' },
      { name: 'tags', fieldType: 'list' },
    ],
  });
  if (res.status !== 201) throw new Error(`object type: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export const T0 = Date.parse('2024-03-01T10:00:00Z');

export function conversation(sourceId: string, id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    sourceId,
    public: true,
    createdAt: T0,
    startedAt: new Date(T0).toISOString(),
    displayName: `Call ${id}`,
    participants: [
      { name: 'Ann Lee', email: 'ann@acme.com' },
      { name: 'Bob Stone', email: 'bob@globex.com' },
    ],
    transcript: [
      { speakerName: 'Ann Lee', text: 'Hello Bob, shall we talk about the renewal?', timestamp: T0 + 5_000 },
      { speakerId: 'u-2', text: 'Yes, the renewal price looks high.', timestamp: (T0 + 12_000) / 1000 },
    ],
    ...extra,
  };
}

export function message(sourceId: string, id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    sourceId,
    public: true,
    createdAt: new Date(T0).toISOString(),
    displayName: `Subject ${id}`,
    body: 'Please find the quarterly report attached. '.repeat(10),
    sender: { name: 'Ann Lee', email: 'ann@acme.com' },
    recipients: [{ email: 'bob@globex.com' }],
    threadId: 'thread-1',
    ...extra,
  };
}

export function row(sourceId: string, objectTypeId: string, id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    sourceId,
    objectTypeId,
    public: true,
    name: `Deal ${id}`,
    fields: { amount: { value: 100.5, fieldType: 'double' }, stage: { value: 'open', fieldType: 'string' } },
    ...extra,
  };
}

export function documentBody(sourceId: string, id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    sourceId,
    public: true,
    content: Buffer.from('Onboarding guide: configure single sign-on first.').toString('base64'),
    filename: 'guide.txt',
    ...extra,
  };
}
