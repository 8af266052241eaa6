/**
 * An in-memory SinkService for the sink's tests: sources and object types
 * behave like the service's, record pushes answer from a script, and every
 * call is logged with the virtual time it was made at.
 */
import { randomUUID } from 'node:crypto';
import type { SinkCallOptions, SinkService } from '../../../src/sink/service-port.js';
import type { ObjectTypeResponse, RecordResponse, SourceResponse, DeletedRecordResponse } from '../../../src/api/schemas/read.js';
import type { CreateObjectTypeRequest, CreateSourceRequest, UpdateObjectTypeRequest } from '../../../src/api/schemas/write.js';
import type { RecordKeyQuery } from '../../../src/api/schemas/query.js';
import type { FieldType } from '../../../src/sdk/types.js';
import type { Clock } from '../../../src/sdk/clock.js';
import { abortedError, classifyFailure } from '../../../src/sdk/http-retry.js';
import { ANSWERED, FINAL, ServiceHealth, retrying } from '../../../src/sdk/transport/service-health.js';
import type { AttemptVerdict } from '../../../src/sdk/transport/service-health.js';

/** Shaped like the client's ServiceError: what the sink reads off a failure. */
export class FakeServiceError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown = undefined,
    readonly retryAfter?: string,
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}`);
  }
}

export function structuredError(status: number, error: string, message: string, field: string | null = null, requestId = 'req-1'): FakeServiceError {
  return new FakeServiceError(status, { detail: { error, message, field, request_id: requestId } });
}

export class NetworkError extends Error {
  readonly code = 'ECONNRESET';
}

/** A virtual clock: sleeping advances time at once and is recorded. */
export class FakeClock implements Clock {
  time = Date.parse('2024-05-01T00:00:00Z');
  readonly sleeps: number[] = [];
  now = (): number => this.time;
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw abortedError(signal, 'wait');
    if (ms <= 0) return;
    this.sleeps.push(ms);
    this.time += ms;
    await Promise.resolve();
    if (signal?.aborted) throw abortedError(signal, 'wait');
  };
}

/**
 * A virtual clock with a timer queue: concurrent sleepers wake in order of
 * their deadlines, time jumping to each (FakeClock adds every sleep to the
 * one time line, which only fits one sleeper at a time).
 */
export class TimerClock implements Clock {
  time = Date.parse('2024-05-01T00:00:00Z');
  private readonly timers: { at: number; resolve: () => void }[] = [];
  private scheduled = false;
  now = (): number => this.time;
  sleep = (ms: number): Promise<void> => {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.timers.push({ at: this.time + ms, resolve });
      this.schedule();
    });
  };

  /** Once everyone has gone to sleep (after the microtasks), wake the earliest sleeper. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (!next) return;
      this.time = Math.max(this.time, next.at);
      next.resolve();
      if (this.timers.length > 0) this.schedule();
    });
  }
}

type PushKind = 'conversation' | 'message' | 'row' | 'document';
export type PushHandler = (kind: PushKind, body: Record<string, unknown>, n: number) => Promise<RecordResponse> | RecordResponse;

export interface CallLog {
  method: string;
  args: unknown[];
  at: number;
  options: SinkCallOptions | undefined;
}

const NOW = '2024-05-01T00:00:00.000Z';

export class FakeService implements SinkService {
  readonly sources: SourceResponse[] = [];
  readonly objectTypes: ObjectTypeResponse[] = [];
  readonly calls: CallLog[] = [];
  inFlight = 0;
  maxInFlight = 0;
  pushes = 0;
  /** Answers for record pushes, in order; when it runs out, `handler` answers. */
  readonly script: (RecordResponse | Error)[] = [];
  handler: PushHandler = (_kind, body) => ({ status: 'created', recordId: randomUUID(), id: String(body.id), sourceId: String(body.sourceId) });
  /** Hooks to simulate another run racing us. */
  beforeCreateSource?: (body: CreateSourceRequest) => void;
  beforeCreateObjectType?: (body: CreateObjectTypeRequest) => void;
  /** Holds object-type PATCHes until released (for serialization tests). */
  patchGate: Promise<void> | undefined;
  afterPatch?: (type: ObjectTypeResponse) => void;
  patchesInFlight = 0;
  maxPatchesInFlight = 0;
  deleteHandler: (kind: PushKind, query: RecordKeyQuery) => DeletedRecordResponse = (_k, q) => ({
    status: 'deleted', recordId: randomUUID(), id: q.remoteId, sourceId: q.sourceId, deletedAt: NOW,
  });

  constructor(private readonly clock: Pick<Clock, 'now'> = { now: () => 0 }) {}

  private log(method: string, args: unknown[], options: SinkCallOptions | undefined): void {
    this.calls.push({ method, args, at: this.clock.now(), options });
  }

  callsOf(method: string): CallLog[] {
    return this.calls.filter((c) => c.method === method);
  }

  addSource(name: string): SourceResponse {
    const s = { id: randomUUID(), name, displayName: name, createdAt: NOW, updatedAt: NOW };
    this.sources.push(s);
    return s;
  }

  addObjectType(sourceId: string, name: string, fields: Record<string, FieldType | { type: FieldType; label?: string; required?: boolean }>): ObjectTypeResponse {
    const t: ObjectTypeResponse = {
      id: randomUUID(), sourceId, name, displayName: name, createdAt: NOW, updatedAt: NOW,
      fieldDefinitions: Object.entries(fields).map(([n, f]) =>
        typeof f === 'string'
          ? { name: n, fieldType: f, label: null, required: false }
          : { name: n, fieldType: f.type, label: f.label ?? null, required: f.required ?? false }),
    };
    this.objectTypes.push(t);
    return t;
  }

  async listSources(query: { name?: string }, options?: SinkCallOptions) {
    this.log('listSources', [query], options);
    const needle = query.name?.toLowerCase();
    return { sources: this.sources.filter((s) => needle === undefined || s.name.toLowerCase().includes(needle)).map((s) => ({ ...s })) };
  }

  async createSource(body: CreateSourceRequest, options?: SinkCallOptions) {
    this.log('createSource', [body], options);
    this.beforeCreateSource?.(body);
    if (this.sources.some((s) => s.name === body.name)) throw structuredError(409, 'conflict', 'source name already exists', 'name');
    const s = { id: randomUUID(), name: body.name, displayName: body.displayName, createdAt: NOW, updatedAt: NOW };
    this.sources.push(s);
    return { ...s };
  }

  async listObjectTypes(query: { sourceId?: string }, options?: SinkCallOptions) {
    this.log('listObjectTypes', [query], options);
    return {
      objectTypes: this.objectTypes
        .filter((t) => query.sourceId === undefined || t.sourceId === query.sourceId)
        .map((t) => structuredClone(t)),
    };
  }

  async createObjectType(body: CreateObjectTypeRequest, options?: SinkCallOptions) {
    this.log('createObjectType', [structuredClone(body)], options);
    this.beforeCreateObjectType?.(body);
    if (this.objectTypes.some((t) => t.sourceId === body.sourceId && t.name === body.name)) {
      throw structuredError(409, 'conflict', 'object type already exists under the source', 'name');
    }
    const t: ObjectTypeResponse = {
      id: randomUUID(), sourceId: body.sourceId, name: body.name, displayName: body.displayName, createdAt: NOW, updatedAt: NOW,
      fieldDefinitions: body.fieldDefinitions.map((d) => ({ name: d.name, fieldType: d.fieldType, label: d.label ?? null, required: d.required ?? false })),
    };
    this.objectTypes.push(t);
    return structuredClone(t);
  }

  async updateObjectType(id: string, body: UpdateObjectTypeRequest, options?: SinkCallOptions) {
    this.log('updateObjectType', [id, structuredClone(body)], options);
    this.patchesInFlight += 1;
    this.maxPatchesInFlight = Math.max(this.maxPatchesInFlight, this.patchesInFlight);
    try {
      if (this.patchGate) await this.patchGate;
      const t = this.objectTypes.find((o) => o.id === id);
      if (!t) throw structuredError(404, 'not_found', 'no such object type');
      if (body.fieldDefinitions) {
        t.fieldDefinitions = body.fieldDefinitions.map((d) => ({ name: d.name, fieldType: d.fieldType, label: d.label ?? null, required: d.required ?? false }));
      }
      const answer = structuredClone(t);
      this.afterPatch?.(t);
      return answer;
    } finally {
      this.patchesInFlight -= 1;
    }
  }

  /**
   * A record call as the client makes it: with a ServiceHealth as `retry`,
   * every attempt the transport's loop allows (the same loop, around this
   * fake's attempt instead of an HTTP one), each admitted by the call's
   * control (the request path's adaptive concurrency and rate), which hears
   * the answer. The final error carries the attempts it took, as the client's do.
   */
  private admitted<T>(call: () => Promise<T>, options: SinkCallOptions | undefined): Promise<T> {
    const health = options?.retry;
    if (!(health instanceof ServiceHealth)) return this.admittedOnce(call, options);
    let attempts = 0;
    const attempt = (n: number): Promise<T> => {
      attempts = n;
      return this.admittedOnce(call, options);
    };
    return retrying(health, attempt, this.verdictOf, options?.hold ?? options?.signal, 'fake push').catch((error: unknown) => {
      if (typeof error === 'object' && error !== null) (error as { attempts?: number }).attempts = attempts;
      throw error;
    });
  }

  /** An attempt's outcome as the transport reads an answer (a rejection here is what the client would throw). */
  private readonly verdictOf = (failed: boolean, outcome: unknown): AttemptVerdict => {
    if (!failed) return ANSWERED;
    const failure = classifyFailure(outcome, this.clock.now());
    if (failure.kind === 'transient') return { kind: 'transient', status: failure.status, retryAfterMs: failure.retryAfterMs };
    return failure.kind === 'fatal' ? FINAL : ANSWERED;
  };

  private admittedOnce<T>(call: () => Promise<T>, options: SinkCallOptions | undefined): Promise<T> {
    if (!options?.control) return call();
    return options.control.admitted(call, options.hold, (error) => {
      const failure = classifyFailure(error, this.clock.now());
      const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : null;
      return { status, retryAfterMs: failure.kind === 'transient' ? failure.retryAfterMs : undefined };
    });
  }

  private push(kind: PushKind, body: Record<string, unknown>, options?: SinkCallOptions): Promise<RecordResponse> {
    return this.admitted(() => this.pushNow(kind, body, options), options);
  }

  private async pushNow(kind: PushKind, body: Record<string, unknown>, options?: SinkCallOptions): Promise<RecordResponse> {
    this.log(`create:${kind}`, [body], options);
    this.pushes += 1;
    const n = this.pushes;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // Let other workers start, so overlapping requests are really concurrent.
      await new Promise((resolve) => setImmediate(resolve));
      const scripted = this.script.shift();
      if (scripted instanceof Error) throw scripted;
      if (scripted) return scripted;
      return await this.handler(kind, body, n);
    } finally {
      this.inFlight -= 1;
    }
  }

  createConversation(body: object, options?: SinkCallOptions) { return this.push('conversation', body as Record<string, unknown>, options); }
  createMessage(body: object, options?: SinkCallOptions) { return this.push('message', body as Record<string, unknown>, options); }
  createRow(body: object, options?: SinkCallOptions) { return this.push('row', body as Record<string, unknown>, options); }
  createDocument(body: object, options?: SinkCallOptions) { return this.push('document', body as Record<string, unknown>, options); }

  private del(kind: PushKind, query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse> {
    return this.admitted(() => this.delNow(kind, query, options), options);
  }

  private async delNow(kind: PushKind, query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse> {
    this.log(`delete:${kind}`, [query], options);
    await Promise.resolve();
    const scripted = this.script.shift();
    if (scripted instanceof Error) throw scripted;
    return this.deleteHandler(kind, query);
  }

  deleteConversation(q: RecordKeyQuery, o?: SinkCallOptions) { return this.del('conversation', q, o); }
  deleteMessage(q: RecordKeyQuery, o?: SinkCallOptions) { return this.del('message', q, o); }
  deleteRow(q: RecordKeyQuery, o?: SinkCallOptions) { return this.del('row', q, o); }
  deleteDocument(q: RecordKeyQuery, o?: SinkCallOptions) { return this.del('document', q, o); }
}

export const silentLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
};

/** A logger that keeps what it was told. */
export function recordingLogger() {
  const lines: { level: string; obj: unknown; msg: string | undefined }[] = [];
  const at = (level: string) => (obj: object | string, msg?: string) => { lines.push({ level, obj, msg }); };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn') } };
}
