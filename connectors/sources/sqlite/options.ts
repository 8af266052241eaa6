import { z } from 'zod';
import { refineSqlRead, sqlReadShape } from '../_sql/options.js';

/** Options of the built-in `sqlite` source. */
export const sqliteOptions = z
  .strictObject({
    path: z.string().min(1).optional().describe('The database file, relative to the YAML file. Example: data/crm.db.'),
    url: z.string().regex(/^sqlite:/i, 'url must start with sqlite:').optional().describe('The same as a URL: `sqlite:data/crm.db` (relative) or `sqlite:///var/lib/crm.db` (absolute).'),
    ...sqlReadShape,
  })
  .superRefine((options, ctx) => {
    refineSqlRead(options, ctx);
    if ((options.path === undefined) === (options.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either path or url (sqlite:<file>)', path: ['path'] });
    }
  });

export type SqliteOptions = z.output<typeof sqliteOptions>;
