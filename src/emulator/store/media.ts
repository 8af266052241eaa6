/** Recording bytes served under /media, stored in the database so file-backed emulators keep them. */
import { prepared, type Db } from './database.js';

export interface MediaEntity {
  id: string;
  orgId: string;
  contentType: string;
  bytes: Buffer;
}

export class MediaRepo {
  constructor(private readonly db: Db) {}

  put(media: MediaEntity): void {
    prepared(this.db, 
        'INSERT INTO media (id, org_id, content_type, bytes) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET content_type = excluded.content_type, bytes = excluded.bytes',
      )
      .run(media.id, media.orgId, media.contentType, media.bytes);
  }

  find(id: string): MediaEntity | undefined {
    const row = prepared(this.db, 'SELECT id, org_id, content_type, bytes FROM media WHERE id = ?').get(id) as
      | { id: string; org_id: string; content_type: string; bytes: Buffer }
      | undefined;
    return row && { id: row.id, orgId: row.org_id, contentType: row.content_type, bytes: row.bytes };
  }
}
