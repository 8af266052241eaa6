import { z } from 'zod';

/** Options of the built-in `file` destination (everything under `destination:` except `type`). */
export const fileOptions = z
  .strictObject({
    path: z.string().min(1).describe('The output file, relative to the YAML file; a name ending in `.gz` is gzip-compressed. Example: ../state/exports/deals.jsonl.'),
    format: z.enum(['jsonl', 'csv']).optional().describe('jsonl: one JSON object per line, nested values kept; csv: nested objects flattened to dot-keyed columns, arrays as JSON text.'),
    mode: z.enum(['overwrite', 'append']).default('overwrite').describe('overwrite: write a temporary file and rename it over the old one when the export completes; append: add to the end.'),
    columns: z.array(z.string().min(1)).min(1).optional().describe('CSV only: the columns, in order (dot keys for nested fields, e.g. owner.email).'),
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
