import { z } from 'zod';

/** Options of the built-in `file` destination (everything under `destination:` except `type`). */
export const fileOptions = z
  .strictObject({
    /** The output file, relative to the YAML file; a name ending in `.gz` is gzip-compressed. @example ../state/exports/deals.jsonl */
    path: z.string().min(1),
    /** jsonl: one JSON object per line, nested values kept; csv: nested objects flattened to dot-keyed columns, arrays as JSON text. @default from the file name (.csv, .csv.gz → csv), else jsonl */
    format: z.enum(['jsonl', 'csv']).optional(),
    /** overwrite: write a temporary file and rename it over the old one when the export completes; append: add to the end. @default overwrite */
    mode: z.enum(['overwrite', 'append']).default('overwrite'),
    /** CSV only: the columns, in order (dot keys for nested fields, e.g. owner.email). @default the keys of the first batch */
    columns: z.array(z.string().min(1)).min(1).optional(),
  })
  .superRefine((options, ctx) => {
    if (options.columns !== undefined && formatOf(options) !== 'csv') {
      ctx.addIssue({ code: 'custom', path: ['columns'], message: 'columns only applies to format: csv' });
    }
  });

export type FileOptions = z.output<typeof fileOptions>;

/** The format written, given explicitly or by the file name. */
export function formatOf(options: { path: string; format?: 'jsonl' | 'csv' | undefined }): 'jsonl' | 'csv' {
  if (options.format) return options.format;
  return /\.csv(\.gz)?$/i.test(options.path) ? 'csv' : 'jsonl';
}
