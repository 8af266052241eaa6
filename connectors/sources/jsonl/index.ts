/**
 * The built-in `jsonl` source: JSON Lines files, and JSON documents (a
 * top-level array is streamed element by element; an object is one record).
 */
import { defineSource, type DiscoveredStream } from '../../../src/sdk/index.js';
import { checkFilesReadable, readFileSource } from '../_shared/file-source.js';
import { countLines, resolveFiles, sampling, toKeyList } from '../_shared/files.js';
import { cursorCandidates, FieldTypeInference, SAMPLE_SIZE } from '../_shared/infer.js';
import { jsonlOptions } from './options.js';
import { formatOf, parseJsonFile } from './parse-file.js';

export default defineSource({
  name: 'jsonl',
  options: jsonlOptions,
  example: { path: 'data/events.jsonl', primaryKey: 'id' },

  keys: (options) => ({ primaryKey: toKeyList(options.primaryKey) }),

  check: checkFilesReadable,

  async discover(ctx): Promise<DiscoveredStream[]> {
    const { options } = ctx;
    const files = await resolveFiles(options.path, ctx.baseDir, ctx.syncName);
    const inference = new FieldTypeInference(false);
    let sampled = 0;
    for (const file of files) {
      if (sampled >= SAMPLE_SIZE) break;
      // A sample: never worth a parse thread's start.
      for await (const row of parseJsonFile(file, options, sampling(ctx), Number.POSITIVE_INFINITY)) {
        inference.observe(row.data);
        sampled += 1;
        if (sampled >= SAMPLE_SIZE) break;
      }
    }
    const fields = inference.fields();
    const primaryKey = toKeyList(options.primaryKey);
    const estimatedCount = await estimate(files.map((file) => file.absolute), options);
    return [
      {
        name: options.path,
        fields,
        ...(primaryKey ? { primaryKey } : {}),
        cursorCandidates: cursorCandidates(fields),
        ...(estimatedCount !== undefined ? { estimatedCount } : {}),
      },
    ];
  },

  partitionable: true,

  read: (ctx) => readFileSource(ctx, parseJsonFile),
});

/**
 * Cheap record counts: lines of JSON Lines files, one per whole-file object.
 * Unknown for arrays, pointers and compressed or large files.
 */
async function estimate(files: readonly string[], options: { format: 'auto' | 'jsonl' | 'json'; compression: 'auto' | 'gzip' | 'none'; pointer?: string | undefined }): Promise<number | undefined> {
  if (options.pointer !== undefined) return undefined;
  let total = 0;
  for (const file of files) {
    if (formatOf(file, options.format) === 'json') return undefined;
    const lines = await countLines(file, options.compression);
    if (lines === undefined) return undefined;
    total += lines;
  }
  return total;
}
