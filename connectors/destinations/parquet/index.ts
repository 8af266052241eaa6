/**
 * The built-in `parquet` destination: typed Parquet files, optionally
 * partitioned by a timestamp, written through DuckDB (`COPY … TO … (FORMAT
 * PARQUET)`) and moved into place only when the export completes.
 */
import { defineDestination } from '../../../src/sdk/index.js';
import { checkWritable, outputPath } from '../_export/paths.js';
import { parquetOptions } from './options.js';
import { openParquetWriter } from './writer.js';

export default defineDestination({
  name: 'parquet',
  options: parquetOptions,
  example: { path: 'exports/parquet', table: 'conversations', mode: 'append', partition: { field: 'startTime', by: 'month' } },
  batchSize: 5000,

  async check(ctx) {
    await checkWritable(outputPath(ctx.options.path, ctx.baseDir), 'parquet', ctx.syncName);
  },

  open: openParquetWriter,
});
