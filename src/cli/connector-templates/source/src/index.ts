/**
 * __CONNECTOR_NAME__: an example ferry source. It reads tickets from a JSON
 * Lines file (one JSON object per line) and is written to be copied: swap the
 * file for your API or database and keep the shape.
 *
 * The contract, in short:
 * - `options` is a zod schema of everything under `source:` in ferry.yaml
 *   except `type`; ferry validates the user's YAML against it first.
 * - `discover()` names the streams and their fields (`ferry discover`).
 * - `read()` yields records in order, each with its origin; on incremental
 *   runs each also carries its cursor and only records after
 *   `ctx.incremental.after` are yielded.
 * - No retries, no parallelism: ferry's sink does both. Stop when
 *   `ctx.signal` aborts. Throw FerryError with a stable code.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import {
  FerryError,
  compareCursorPositions,
  defineSource,
  type ConnectorContext,
  type CursorPosition,
  type SourceRecord,
} from 'ferry/sdk';

const options = z.strictObject({
  // .describe() becomes the JSON Schema description editors show (`ferry schema`).
  path: z.string().min(1).describe('A JSON Lines file of tickets, relative to the YAML file that declares the sync. Example: data/tickets.jsonl.'),
});
type Options = z.output<typeof options>;

/** One line of the file. Unknown keys are kept: the mapping may want them. */
const ticket = z
  .object({
    id: z.union([z.string().min(1), z.number()]),
    subject: z.string(),
    status: z.string(),
    priority: z.number().int().nullable().optional(),
    updated_at: z.string(),
  })
  .catchall(z.json());
type Ticket = z.output<typeof ticket>;

interface Line {
  ticket: Ticket;
  line: number;
}

/** Parse every line, naming file:line when one is not a ticket. */
async function* readLines(ctx: ConnectorContext<Options>): AsyncGenerator<Line> {
  const file = resolve(ctx.baseDir, ctx.options.path);
  const lines = createInterface({ input: createReadStream(file, { signal: ctx.signal }), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `${ctx.options.path}:${line} is not JSON`, { cause, where: `${ctx.options.path}:${line}` });
      }
      const result = ticket.safeParse(parsed);
      if (!result.success) {
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `${ctx.options.path}:${line} is not a ticket: ${result.error.issues[0]?.message ?? ''}`, {
          where: `${ctx.options.path}:${line}`,
        });
      }
      yield { ticket: result.data, line };
    }
  } catch (error) {
    // An abort surfaces as the signal's reason, so callers can tell it from a failure.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw error;
  } finally {
    lines.close();
  }
}

/** Where a ticket sits in cursor order: the cursor field's value, then its id. */
function positionOf(entry: Line, cursorField: string): CursorPosition | undefined {
  const value: unknown = entry.ticket[cursorField];
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  return { value, key: String(entry.ticket.id) };
}

export default defineSource({
  name: '__CONNECTOR_NAME__',
  options,
  example: { path: 'data/tickets.jsonl' },

  // The stream's keys, declared: ferry breaks cursor ties with the primary key.
  keys: () => ({ primaryKey: ['id'], cursorField: 'updated_at' }),

  async check(ctx) {
    try {
      await access(resolve(ctx.baseDir, ctx.options.path));
    } catch (cause) {
      throw new FerryError('FERRY_SOURCE_UNREACHABLE', `cannot read ${ctx.options.path}`, {
        cause,
        where: `sync ${ctx.syncName}`,
        hint: `paths resolve against ${ctx.baseDir}`,
      });
    }
  },

  async discover(ctx) {
    let count = 0;
    for await (const _ of readLines(ctx)) count++;
    return [
      {
        name: ctx.options.path,
        primaryKey: ['id'],
        cursorCandidates: ['updated_at'],
        estimatedCount: count,
        fields: [
          { name: 'id', type: 'string' },
          { name: 'subject', type: 'string' },
          { name: 'status', type: 'string' },
          { name: 'priority', type: 'int', nullable: true },
          { name: 'updated_at', type: 'datetime' },
        ],
      },
    ];
  },

  async *read(ctx): AsyncGenerator<SourceRecord> {
    const origin = (entry: Line) => ({ stream: ctx.options.path, file: ctx.options.path, line: entry.line, key: String(entry.ticket.id) });
    if (!ctx.incremental) {
      for await (const entry of readLines(ctx)) yield { data: entry.ticket, origin: origin(entry) };
      return;
    }
    // Incremental: sorted by (cursor, id), so a read interrupted anywhere
    // resumes from the last acknowledged record without gaps. A real API
    // would ask the server for `updated_at > after` in that order instead.
    const { cursorField, after } = ctx.incremental;
    const entries: { entry: Line; position: CursorPosition | undefined }[] = [];
    for await (const entry of readLines(ctx)) entries.push({ entry, position: positionOf(entry, cursorField) });
    entries.sort((a, b) => (a.position && b.position ? compareCursorPositions(a.position, b.position) : a.position ? 1 : b.position ? -1 : 0));
    for (const { entry, position } of entries) {
      ctx.signal.throwIfAborted();
      if (after && position && compareCursorPositions(position, after) <= 0) continue;
      yield { data: entry.ticket, origin: origin(entry), cursor: position?.value ?? null };
    }
  },
});
