import { z } from 'zod';
import { compressionOption, encodingOption, pathOption, primaryKeyOption } from '../_shared/files.js';
import { invalidEncodingOption } from '../_shared/invalid-encoding.js';

/** Options of the built-in `csv` source (everything under `source:` except `type`). */
export const csvOptions = z.strictObject({
  /** A file or a glob, relative to the YAML file; several files are read in sorted order. @example data/deals-*.csv */
  path: pathOption,
  /** Field separator. @default "," */
  delimiter: z.string().min(1).default(','),
  /** Quote character, or false when fields are never quoted. @default '"' */
  quote: z.union([z.string().length(1), z.literal(false)]).default('"'),
  /** Escape character inside quoted fields. @default the quote character ("" inside "…") */
  escape: z.string().length(1).optional(),
  /** true: the first line names the columns; a list: the column names (the first line is data); false: column_1, column_2, … @default true */
  header: z.union([z.boolean(), z.array(z.string().min(1)).min(1)]).default(true),
  /** @default utf8 */
  encoding: encodingOption,
  /** Bytes that are not valid UTF-8: replace reads them as U+FFFD, counts each line as skipped and warns once per file with the line numbers; reject stops the read at the first, naming file:line. Only utf8 is checked (latin1 and other single-byte encodings accept every byte). @default replace */
  onInvalidEncoding: invalidEncodingOption,
  /** auto: gunzip files ending in .gz. @default auto */
  compression: compressionOption,
  /** @default true */
  skipEmptyLines: z.boolean().default(true),
  /** Trim spaces around values and column names. @default false */
  trim: z.boolean().default(false),
  /** Rows with a different number of columns than the header are always kept; true silences the warning about them (otherwise each is counted as skipped: kept, but changed). @default false */
  relaxColumnCount: z.boolean().default(false),
  /** Accept quote characters inside unquoted fields. @default false */
  relaxQuotes: z.boolean().default(false),
  /** Convert numbers and true/false to JSON numbers and booleans; by default every value is text and the mapping coerces. @default false */
  cast: z.boolean().default(false),
  /** Column(s) identifying a row; they become the origin key and the incremental tie-breaker. */
  primaryKey: primaryKeyOption,
});

export type CsvOptions = z.output<typeof csvOptions>;
