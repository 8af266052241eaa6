/**
 * The built-in `csv` source: delimited text files (or a glob of them),
 * streamed with csv-parse. Values are text unless `cast: true`; the mapping
 * does the coercion.
 */
import { defineSource, inPartition, type DiscoveredStream } from '../../src/sdk/index.js';
import { toSourceRecords, type FileRow } from '../_shared/emit.js';
import { assertReadable, countLines, resolveFiles, sampling, toKeyList } from '../_shared/files.js';
import { cursorCandidates, FieldTypeInference, SAMPLE_SIZE } from '../_shared/infer.js';
import { csvOptions } from './options.js';
import { parseCsvFile } from './parse-file.js';

export default defineSource({
  name: 'csv',
  options: csvOptions,
  example: { path: 'data/deals.csv', primaryKey: 'opportunity_id' },

  keys: (options) => ({ primaryKey: toKeyList(options.primaryKey) }),

  async check(ctx) {
    const files = await resolveFiles(ctx.options.path, ctx.baseDir, ctx.syncName);
    for (const file of files) await assertReadable(file, ctx.syncName);
  },

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
      for await (const row of parseCsvFile(file, options, sampling(ctx))) {
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

  read(ctx) {
    const { options } = ctx;
    async function* rows(): AsyncGenerator<FileRow> {
      const files = await resolveFiles(options.path, ctx.baseDir, ctx.syncName);
      // A partitioned sync reads whole files: each file's slice is a hash of its path.
      for (const file of files) if (inPartition(file.relative, ctx.partition)) yield* parseCsvFile(file, options, ctx);
    }
    return toSourceRecords(rows(), {
      stream: options.path,
      primaryKey: toKeyList(options.primaryKey) ?? ctx.primaryKey,
      incremental: ctx.incremental,
    });
  },
});
