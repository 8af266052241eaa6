/** Sources: caller-created containers for pushed records, unique by name within an organization. */
import { randomUUID } from 'node:crypto';
import { prepared, type Db } from './database.js';
import type { SourceEntity } from './types.js';

interface SourceRow {
  id: string;
  org_id: string;
  name: string;
  display_name: string;
  created_ms: number;
  updated_ms: number;
  deleted_ms: number | null;
}

const decode = (r: SourceRow): SourceEntity => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  displayName: r.display_name,
  createdMs: r.created_ms,
  updatedMs: r.updated_ms,
  deletedMs: r.deleted_ms,
});

export class SourcesRepo {
  constructor(private readonly db: Db) {}

  /** Any source with this id, deleted or not, of any organization. */
  find(id: string): SourceEntity | undefined {
    const row = prepared(this.db, 'SELECT * FROM sources WHERE id = ?').get(id) as SourceRow | undefined;
    return row && decode(row);
  }

  /** A live source of the organization. */
  findLive(orgId: string, id: string): SourceEntity | undefined {
    const source = this.find(id);
    return source && source.orgId === orgId && source.deletedMs === null ? source : undefined;
  }

  findByName(orgId: string, name: string): SourceEntity | undefined {
    const row = prepared(this.db, 'SELECT * FROM sources WHERE org_id = ? AND name = ? AND deleted_ms IS NULL')
      .get(orgId, name) as SourceRow | undefined;
    return row && decode(row);
  }

  /** Live sources, oldest first, optionally filtered by a case-insensitive name fragment. */
  list(orgId: string, nameFragment?: string): SourceEntity[] {
    const rows = prepared(this.db, 'SELECT * FROM sources WHERE org_id = ? AND deleted_ms IS NULL ORDER BY created_ms, id')
      .all(orgId) as SourceRow[];
    const needle = nameFragment?.toLowerCase();
    return rows.map(decode).filter((s) => needle === undefined || s.name.toLowerCase().includes(needle));
  }

  create(orgId: string, name: string, displayName: string, now = Date.now()): SourceEntity {
    const source: SourceEntity = { id: randomUUID(), orgId, name, displayName, createdMs: now, updatedMs: now, deletedMs: null };
    prepared(this.db, 'INSERT INTO sources (id, org_id, name, display_name, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)')
      .run(source.id, orgId, name, displayName, now, now);
    return source;
  }

  rename(id: string, displayName: string, now = Date.now()): void {
    prepared(this.db, 'UPDATE sources SET display_name = ?, updated_ms = ? WHERE id = ?').run(displayName, now, id);
  }

  softDelete(id: string, now = Date.now()): void {
    prepared(this.db, 'UPDATE sources SET deleted_ms = ?, updated_ms = ? WHERE id = ?').run(now, now, id);
  }
}
