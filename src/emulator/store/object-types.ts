/** Object types: the typed schemas rows are validated against, unique by name within a source. */
import { randomUUID } from 'node:crypto';
import { prepared, type Db } from './database.js';
import type { FieldDefinitionData, ObjectTypeEntity } from './types.js';

interface ObjectTypeRow {
  id: string;
  org_id: string;
  source_id: string;
  name: string;
  display_name: string;
  field_definitions: string;
  created_ms: number;
  updated_ms: number;
  deleted_ms: number | null;
}

const decode = (r: ObjectTypeRow): ObjectTypeEntity => ({
  id: r.id,
  orgId: r.org_id,
  sourceId: r.source_id,
  name: r.name,
  displayName: r.display_name,
  fieldDefinitions: JSON.parse(r.field_definitions) as FieldDefinitionData[],
  createdMs: r.created_ms,
  updatedMs: r.updated_ms,
  deletedMs: r.deleted_ms,
});

export class ObjectTypesRepo {
  constructor(private readonly db: Db) {}

  find(id: string): ObjectTypeEntity | undefined {
    const row = prepared(this.db, 'SELECT * FROM object_types WHERE id = ?').get(id) as ObjectTypeRow | undefined;
    return row && decode(row);
  }

  findLive(orgId: string, id: string): ObjectTypeEntity | undefined {
    const type = this.find(id);
    return type && type.orgId === orgId && type.deletedMs === null ? type : undefined;
  }

  findByName(sourceId: string, name: string): ObjectTypeEntity | undefined {
    const row = prepared(this.db, 'SELECT * FROM object_types WHERE source_id = ? AND name = ? AND deleted_ms IS NULL')
      .get(sourceId, name) as ObjectTypeRow | undefined;
    return row && decode(row);
  }

  /** Live object types of the organization, oldest first. */
  list(orgId: string, sourceId?: string): ObjectTypeEntity[] {
    const rows = (
      sourceId === undefined
        ? prepared(this.db, 'SELECT * FROM object_types WHERE org_id = ? AND deleted_ms IS NULL ORDER BY created_ms, id').all(orgId)
        : prepared(this.db, 'SELECT * FROM object_types WHERE org_id = ? AND source_id = ? AND deleted_ms IS NULL ORDER BY created_ms, id')
            .all(orgId, sourceId)
    ) as ObjectTypeRow[];
    return rows.map(decode);
  }

  create(
    input: { orgId: string; sourceId: string; name: string; displayName: string; fieldDefinitions: FieldDefinitionData[] },
    now = Date.now(),
  ): ObjectTypeEntity {
    const entity: ObjectTypeEntity = { ...input, id: randomUUID(), createdMs: now, updatedMs: now, deletedMs: null };
    prepared(this.db, 
        'INSERT INTO object_types (id, org_id, source_id, name, display_name, field_definitions, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(entity.id, entity.orgId, entity.sourceId, entity.name, entity.displayName, JSON.stringify(entity.fieldDefinitions), now, now);
    return entity;
  }

  update(id: string, patch: { displayName?: string; fieldDefinitions?: FieldDefinitionData[] }, now = Date.now()): void {
    const current = this.find(id);
    if (!current) return;
    prepared(this.db, 'UPDATE object_types SET display_name = ?, field_definitions = ?, updated_ms = ? WHERE id = ?')
      .run(
        patch.displayName ?? current.displayName,
        JSON.stringify(patch.fieldDefinitions ?? current.fieldDefinitions),
        now,
        id,
      );
  }

  softDelete(id: string, now = Date.now()): void {
    prepared(this.db, 'UPDATE object_types SET deleted_ms = ?, updated_ms = ? WHERE id = ?').run(now, now, id);
  }
}
