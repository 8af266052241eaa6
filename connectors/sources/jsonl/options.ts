import { z } from 'zod';
import { compressionOption, encodingOption, maxRecordBytesOption, pathOption, primaryKeyOption } from '../_shared/files.js';
import { invalidEncodingOption } from '../_shared/invalid-encoding.js';

/** Options of the built-in `jsonl` source (everything under `source:` except `type`). */
export const jsonlOptions = z.strictObject({
  path: pathOption.describe('A file or a glob, relative to the YAML file; several files are read in sorted order. Example: calls/*.json.'),
  format: z.enum(['auto', 'jsonl', 'json']).default('auto').describe('jsonl: one JSON value per line; json: a document (an array is split into its elements, an object is one record); auto: json for *.json, jsonl otherwise.'),
  encoding: encodingOption,
  onInvalidEncoding: invalidEncodingOption.describe('Bytes that are not valid UTF-8: replace reads them as U+FFFD, counts each line as repaired and warns once per file with the line numbers; reject stops the read at the first, naming file:line.'),
  compression: compressionOption.describe('auto: gunzip files ending in .gz.'),
  pointer: z.string().optional().describe('Take a part of each value (JSON pointer `/a/b` or dot path `a.b`); an array there yields one record per element.'),
  includeFileName: z.boolean().default(false).describe('Add `_file` (the path relative to the YAML file) to every record, e.g. to group by file.'),
  onInvalidLine: z.enum(['fail', 'skip']).default('fail').describe('fail: stop with file:line on a malformed line; skip: warn, count as skipped (summary, status, --json) and go on.'),
  primaryKey: primaryKeyOption.describe('Field(s) identifying a record; they become the origin key and the incremental tie-breaker.'),
  maxRecordBytes: maxRecordBytesOption,
});

export type JsonlOptions = z.output<typeof jsonlOptions>;
