/**
 * The built-in `csv` source: delimited text files (or a glob of them),
 * streamed with csv-parse. Values are text unless `cast: true`; the mapping
 * does the coercion.
 */
import { defineSource, type DiscoveredStream } from '../../../src/sdk/index.js';
import { checkFilesReadable, readFileSource } from '../_shared/file-source.js';
import { countLines, resolveFiles, sampling, toKeyList } from '../_shared/files.js';
import { cursorCandidates, FieldTypeInference, SAMPLE_SIZE } from '../_shared/infer.js';
import { csvOptions } from './options.js';
import { parseCsvFile } from './parse-file.js';

export default defineSource({
  name: 'csv',
  options: csvOptions,
  example: { path: 'data/deals.csv', primaryKey: 'opportunity_id' },

  keys: (options) => ({ primaryKey: toKeyList(options.primaryKey) }),

  check: checkFilesReadable,

  async discover(ctx): Promise<DiscoveredStream[]> {
    const { options } = ctx;
    const files = await resolveFiles(options.path, ctx.baseDir, ctx.syncName);
    const inference = new FieldTypeInference(!options.cast);
    let sampled = 0;
    let estimatedCount: number | undefined = 0;
    for (const file of files) {
      const lines = await countLines(file.absolute, options.compression);
      estimatedCount = lines === undefined || estimatedCount === undefined ? undefined : estimatedCount + lines - (options.header === true ? 1 : 0);
      let headerSeen = false;
      // Sampling reads a few rows: a parse thread would cost more to start than it saves.
      for await (const row of parseCsvFile(file, options, sampling(ctx), Number.POSITIVE_INFINITY)) {
        if (!headerSeen) {
          for (const column of row.columns) inference.declare(column);
          headerSeen = true;
        }
        if (sampled >= SAMPLE_SIZE) break;
        inference.observe(row.data);
        sampled += 1;
      }
    }
    const fields = inference.fields();
    const primaryKey = toKeyList(options.primaryKey);
    return [
      {
        name: options.path,
        fields,
        ...(primaryKey ? { primaryKey } : {}),
        cursorCandidates: cursorCandidates(fields),
        ...(estimatedCount !== undefined ? { estimatedCount: Math.max(0, estimatedCount) } : {}),
      },
    ];
  },

  partitionable: true,

  read: (ctx) => readFileSource(ctx, parseCsvFile),
});
