/**
 * A transcript's sidecar: a JSON file with the same base name
 * (`standup.vtt` → `standup.json`) that says what the transcript cannot:
 * when the meeting started, its title, and who took part (with e-mails).
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { messageOf } from '../../../src/sdk/index.js';

const timestamp = z.union([z.string().min(1), z.number()]);

export const sidecarSchema = z.looseObject({
  startedAt: timestamp.optional().describe('The meeting start: ISO 8601, Unix seconds or milliseconds.'),
  endedAt: timestamp.optional().describe('The meeting end, when it is later than the last cue ends.'),
  title: z.string().optional(),
  participants: z
    .array(
      z
        .looseObject({ id: z.string().min(1).optional(), name: z.string().min(1).optional(), email: z.string().min(1).optional() })
        .refine((p) => p.id !== undefined || p.name !== undefined || p.email !== undefined, 'a participant needs a name, an email or an id'),
    )
    .optional(),
});
export type Sidecar = z.output<typeof sidecarSchema>;

export type SidecarRead = { sidecar: Sidecar; text: string; modifiedAt: Date } | { error: string } | undefined;

/** The sidecar at `path`: undefined when there is none, an error when it does not parse. */
export async function readSidecar(path: string): Promise<SidecarRead> {
  let text: string;
  let modifiedAt: Date;
  try {
    [text, modifiedAt] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => s.mtime)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { error: messageOf(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON (${messageOf(error)})` };
  }
  const parsed = sidecarSchema.safeParse(json);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') };
  return { sidecar: parsed.data, text, modifiedAt };
}

/** Epoch ms of a timestamp as the service reads one (ISO 8601, Unix seconds or milliseconds), or undefined. */
export function timestampMs(value: string | number): number | undefined {
  if (typeof value === 'number') return value < 1e11 ? value * 1000 : value;
  if (/^\d+$/.test(value)) return timestampMs(Number(value));
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

const IN_NAME = /(\d{4})-(\d{2})-(\d{2})[T _](\d{2})[:.-]?(\d{2})(?:[:.-]?(\d{2}))?(Z|[+-]\d{2}:?\d{2})?/;

/**
 * An ISO date-time in a file name (`standup-2024-05-01T09-30-00Z.vtt`,
 * `2024-05-01 09.30.vtt`); without a zone it is read as UTC.
 */
export function dateTimeInName(name: string): number | undefined {
  const m = IN_NAME.exec(name);
  if (!m) return undefined;
  const zone = m[7] ? (m[7] === 'Z' ? 'Z' : m[7].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')) : 'Z';
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}
