/**
 * The built-in `sqlite-table` destination: upserts records into a table of a
 * SQLite file, creating the table and its columns from the data.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { defineDestination, FerryError, messageOf } from '../../../src/sdk/index.js';
import { checkWritable, outputPath } from '../_export/paths.js';
import { sqliteTableOptions } from './options.js';
import { openSqliteWriter } from './writer.js';

export default defineDestination({
  name: 'sqlite-table',
  options: sqliteTableOptions,
  example: { path: 'exports/warehouse.db', table: 'conversations' },

  async check(ctx) {
    const file = outputPath(ctx.options.path, ctx.baseDir);
    await checkWritable(file, 'sqlite-table', ctx.syncName);
    if (!existsSync(file)) return;
    try {
      // Reading the schema proves the file is a SQLite database, without changing it.
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      } finally {
        db.close();
      }
    } catch (cause) {
      throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `sqlite-table: ${file} is not a readable SQLite database: ${messageOf(cause)}`, {
        where: `export ${ctx.syncName}`,
        cause,
      });
    }
  },

  open: openSqliteWriter,
});
