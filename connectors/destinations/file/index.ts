/**
 * The built-in `file` destination: JSON Lines or CSV files, overwritten
 * atomically or appended to, gzip-compressed when the name ends in `.gz`.
 */
import { defineDestination } from '../../../src/sdk/index.js';
import { checkWritable, outputPath } from '../_export/paths.js';
import { fileOptions } from './options.js';
import { openFileWriter } from './writer.js';

export default defineDestination({
  name: 'file',
  options: fileOptions,
  example: { path: 'exports/conversations.jsonl', mode: 'overwrite' },

  async check(ctx) {
    await checkWritable(outputPath(ctx.options.path, ctx.baseDir), 'file', ctx.syncName);
  },

  open: openFileWriter,
});
