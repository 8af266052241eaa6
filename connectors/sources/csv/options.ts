import { z } from 'zod';
import { compressionOption, encodingOption, maxRecordBytesOption, pathOption, primaryKeyOption } from '../_shared/files.js';
import { invalidEncodingOption } from '../_shared/invalid-encoding.js';

/** Options of the built-in `csv` source (everything under `source:` except `type`). */
export const csvOptions = z.strictObject({
  path: pathOption.describe('A file or a glob, relative to the YAML file; several files are read in sorted order. Example: data/deals-*.csv.'),
  delimiter: z.string().min(1).default(',').describe('Field separator.'),
  quote: z.union([z.string().length(1), z.literal(false)]).default('"').describe('Quote character, or false when fields are never quoted.'),
  escape: z.string().length(1).optional().describe('Escape character inside quoted fields; default: the quote character ("" inside "…").'),
  header: z.union([z.boolean(), z.array(z.string().min(1)).min(1)]).default(true).describe('true: the first line names the columns; a list: the column names (the first line is data); false: column_1, column_2, …'),
  encoding: encodingOption,
  onInvalidEncoding: invalidEncodingOption.describe('Bytes that are not valid UTF-8: replace reads them as U+FFFD, counts each line as repaired and warns once per file with the line numbers; reject stops the read at the first, naming file:line. Only utf8 is checked (latin1 and other single-byte encodings accept every byte).'),
  compression: compressionOption.describe('auto: gunzip files ending in .gz.'),
  skipEmptyLines: z.boolean().default(true).describe('Skip lines with no characters at all (they are not counted as rows).'),
  trim: z.boolean().default(false).describe('Trim spaces around values and column names.'),
  relaxColumnCount: z.boolean().default(false).describe('Rows with a different number of columns than the header are always kept; true silences the warning about them (otherwise each is warned about and counted as repaired: kept, but changed).'),
  relaxQuotes: z.boolean().default(false).describe('Accept quote characters inside unquoted fields.'),
  cast: z.boolean().default(false).describe('Convert numbers and true/false to JSON numbers and booleans; by default every value is text and the mapping coerces.'),
  primaryKey: primaryKeyOption.describe('Column(s) identifying a row; they become the origin key and the incremental tie-breaker.'),
  maxRecordBytes: maxRecordBytesOption,
});

export type CsvOptions = z.output<typeof csvOptions>;
