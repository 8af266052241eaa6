import { z } from 'zod';
import { refineSqlRead, sqlReadShape } from '../_sql/options.js';

/** Options of the built-in `sqlite` source. */
export const sqliteOptions = z
  .strictObject({
    /** The database file, relative to the YAML file. @example data/crm.db */
    path: z.string().min(1).optional(),
    /** The same as a URL: `sqlite:data/crm.db` (relative) or `sqlite:///var/lib/crm.db` (absolute). */
    url: z.string().regex(/^sqlite:/i, 'url must start with sqlite:').optional(),
    ...sqlReadShape,
  })
  .superRefine((options, ctx) => {
    refineSqlRead(options, ctx);
    if ((options.path === undefined) === (options.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either path or url (sqlite:<file>)', path: ['path'] });
    }
  });

export type SqliteOptions = z.output<typeof sqliteOptions>;
