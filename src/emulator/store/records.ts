/**
 * Conversations, messages, rows and documents, pushed or native, in one table
 * keyed by (org, kind, sourceId, remoteId). Reads only ever see records that
 * are public and not soft-deleted (`visible`).
 */
import { prepared, type Db } from './database.js';
import { paginate } from './paginate.js';
import { newRecordId } from './uuid.js';
import type { DataByKind, Page, RecordKind, StoredRecord } from './types.js';

interface RecordRow {
  id: string;
  org_id: string;
  kind: string;
  source_id: string;
  remote_id: string;
  public: number;
  owner_emails: string;
  native: number;
  object_type_id: string | null;
  sort_ms: number;
  data: string;
  created_ms: number;
  updated_ms: number;
  deleted_ms: number | null;
}

function decode<K extends RecordKind>(r: RecordRow): StoredRecord<K> {
  return {
    id: r.id,
    orgId: r.org_id,
    kind: r.kind as K,
    sourceId: r.source_id,
    remoteId: r.remote_id,
    public: r.public === 1,
    ownerEmails: JSON.parse(r.owner_emails) as string[],
    native: r.native === 1,
    objectTypeId: r.object_type_id,
    sortMs: r.sort_ms,
    data: JSON.parse(r.data) as DataByKind[K],
    createdMs: r.created_ms,
    updatedMs: r.updated_ms,
    deletedMs: r.deleted_ms,
  };
}

export interface RecordKey {
  orgId: string;
  kind: RecordKind;
  sourceId: string;
  remoteId: string;
}

export interface RecordWrite<K extends RecordKind> {
  public: boolean;
  ownerEmails: string[];
  native?: boolean;
  objectTypeId?: string | null;
  sortMs: number;
  data: DataByKind[K];
  /** Record id to use when the record is new (seeds keep their ids); a new one otherwise (uuid.ts). */
  id?: string;
}

export interface RecordListQuery<K extends RecordKind> {
  orgId: string;
  kind: K;
  limit: number;
  cursor?: string | undefined;
  sourceId?: string | undefined;
  remoteId?: string | undefined;
  objectTypeId?: string | undefined;
  sortFrom?: number | undefined;
  sortTo?: number | undefined;
  keep?: (record: StoredRecord<K>) => boolean;
}

export interface RecordHeader {
  id: string;
  sortMs: number;
  createdMs: number;
  deletedMs: number | null;
}

/** Whether an API key may read the record: public and not soft-deleted. */
export function isVisible(record: StoredRecord): boolean {
  return record.public && record.deletedMs === null;
}

export class RecordsRepo {
  constructor(private readonly db: Db) {}

  findByKey<K extends RecordKind>(key: RecordKey & { kind: K }): StoredRecord<K> | undefined {
    const row = prepared(this.db, 'SELECT * FROM records WHERE org_id = ? AND kind = ? AND source_id = ? AND remote_id = ?')
      .get(key.orgId, key.kind, key.sourceId, key.remoteId) as RecordRow | undefined;
    return row && decode<K>(row);
  }

  findById<K extends RecordKind>(kind: K, id: string): StoredRecord<K> | undefined {
    const record = this.findAny(id);
    return record?.kind === kind ? (record as StoredRecord<K>) : undefined;
  }

  /** The record with this id, whatever its kind, deleted or not. */
  findAny(id: string): StoredRecord | undefined {
    const row = prepared(this.db, 'SELECT * FROM records WHERE id = ?').get(id) as RecordRow | undefined;
    return row && decode(row);
  }

  /** A record an API key of `orgId` may read, or undefined. */
  findVisible<K extends RecordKind>(orgId: string, kind: K, id: string): StoredRecord<K> | undefined {
    const record = this.findById(kind, id);
    return record && record.orgId === orgId && isVisible(record) ? record : undefined;
  }

  /**
   * Insert or replace the record under `key`. A soft-deleted record is revived
   * under its old id and reported as created, like a first push.
   */
  upsert<K extends RecordKind>(
    key: RecordKey & { kind: K },
    write: RecordWrite<K>,
    now = Date.now(),
  ): { record: StoredRecord<K>; status: 'created' | 'updated' } {
    const existing = this.findHeader(key);
    const data = JSON.stringify(write.data);
    const owners = JSON.stringify(write.ownerEmails);
    const revived = existing !== undefined && existing.deletedMs !== null;
    const id = existing?.id ?? write.id ?? newRecordId(now);
    const createdMs = existing === undefined || revived ? now : existing.createdMs;
    if (existing) {
      prepared(this.db, 
          `UPDATE records SET public = ?, owner_emails = ?, native = ?, object_type_id = ?, sort_ms = ?, data = ?,
             updated_ms = ?, deleted_ms = NULL, created_ms = ? WHERE id = ?`,
        )
        .run(write.public ? 1 : 0, owners, write.native ? 1 : 0, write.objectTypeId ?? null, write.sortMs, data, now, createdMs, id);
    } else {
      prepared(this.db, 
          `INSERT INTO records (id, org_id, kind, source_id, remote_id, public, owner_emails, native, object_type_id, sort_ms, data, created_ms, updated_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, key.orgId, key.kind, key.sourceId, key.remoteId, write.public ? 1 : 0, owners, write.native ? 1 : 0, write.objectTypeId ?? null, write.sortMs, data, now, now);
    }
    // The stored record as a read would decode it, built without reading it back.
    const record: StoredRecord<K> = {
      id,
      orgId: key.orgId,
      kind: key.kind,
      sourceId: key.sourceId,
      remoteId: key.remoteId,
      public: write.public,
      ownerEmails: JSON.parse(owners) as string[],
      native: write.native === true,
      objectTypeId: write.objectTypeId ?? null,
      sortMs: write.sortMs,
      data: JSON.parse(data) as DataByKind[K],
      createdMs,
      updatedMs: now,
      deletedMs: null,
    };
    return { record, status: existing === undefined || revived ? 'created' : 'updated' };
  }

  /** Id, times and sort key of the record under `key`, without decoding its data. */
  findHeader(key: RecordKey): RecordHeader | undefined {
    const row = prepared(this.db, 'SELECT id, sort_ms, created_ms, deleted_ms FROM records WHERE org_id = ? AND kind = ? AND source_id = ? AND remote_id = ?')
      .get(key.orgId, key.kind, key.sourceId, key.remoteId) as Pick<RecordRow, 'id' | 'sort_ms' | 'created_ms' | 'deleted_ms'> | undefined;
    return row && { id: row.id, sortMs: row.sort_ms, createdMs: row.created_ms, deletedMs: row.deleted_ms };
  }

  softDelete(id: string, now = Date.now()): void {
    prepared(this.db, 'UPDATE records SET deleted_ms = ?, updated_ms = ? WHERE id = ?').run(now, now, id);
  }

  /** One page of visible records of a kind, newest first by sort key. */
  list<K extends RecordKind>(q: RecordListQuery<K>): Page<StoredRecord<K>> {
    const where = ['org_id = ?', 'kind = ?', 'public = 1', 'deleted_ms IS NULL'];
    const params: unknown[] = [q.orgId, q.kind];
    const add = (sql: string, value: unknown) => {
      where.push(sql);
      params.push(value);
    };
    if (q.sourceId !== undefined) add('source_id = ?', q.sourceId);
    if (q.remoteId !== undefined) add('remote_id = ?', q.remoteId);
    if (q.objectTypeId !== undefined) add('object_type_id = ?', q.objectTypeId);
    if (q.sortFrom !== undefined) add('sort_ms >= ?', q.sortFrom);

    return paginate<RecordRow, StoredRecord<K>>(this.db, {
      list: q.kind,
      table: 'records',
      idColumn: 'id',
      where,
      params,
      limit: q.limit,
      cursor: q.cursor,
      sortTo: q.sortTo,
      decode: (row) => decode<K>(row),
      keep: q.keep,
      keyOf: (row) => ({ sortMs: row.sort_ms, id: row.id }),
    });
  }

  /** Every visible record of every organization (for rebuilding the search index). */
  *allVisible(): IterableIterator<StoredRecord> {
    const rows = prepared(this.db, 'SELECT * FROM records WHERE public = 1 AND deleted_ms IS NULL').all() as RecordRow[];
    for (const row of rows) yield decode(row);
  }
}
