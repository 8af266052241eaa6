/**
 * The built-in `duckdb` destination: upserts records into typed tables of a
 * DuckDB database file, appending each batch through DuckDB's appender.
 */
import { defineDestination } from '../../../src/sdk/index.js';
import { checkWritable, outputPath } from '../_export/paths.js';
import { duckdbOptions } from './options.js';
import { openDuckdbWriter } from './writer.js';

export default defineDestination({
  name: 'duckdb',
  options: duckdbOptions,
  example: { path: 'exports/warehouse.duckdb', table: 'conversations' },
  // The appender and the merge amortise over thousands of rows per transaction.
  batchSize: 5000,

  async check(ctx) {
    await checkWritable(outputPath(ctx.options.path, ctx.baseDir), 'duckdb', ctx.syncName);
  },

  open: openDuckdbWriter,
});
