/**
 * Cursor positions as JSON text. A string value stays a string and a number
 * is written with the shortest text that reads back as the same double, so
 * nothing is lost to a float round trip (numerics and timestamps with
 * microseconds or zones travel as strings).
 */
import { z } from 'zod';
import { FerryError } from '../../sdk/errors.js';
import type { CursorPosition } from '../../sdk/types.js';

const positionSchema = z.object({ value: z.union([z.string(), z.number()]), key: z.string().optional() });

export function encodeCursor(sync: string, position: CursorPosition): string {
  if (typeof position.value === 'number' && !Number.isFinite(position.value)) {
    throw new FerryError('FERRY_STATE_ERROR', `cursor value ${position.value} of sync "${sync}" cannot be stored`, {
      where: sync,
      hint: 'cursor values must be finite numbers or strings',
    });
  }
  return JSON.stringify(position.key === undefined ? { value: position.value } : { value: position.value, key: position.key });
}

export function decodeCursor(text: string, sync: string): CursorPosition {
  const parsed = positionSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new FerryError('FERRY_STATE_ERROR', `stored cursor of sync "${sync}" is unreadable`, {
      where: sync,
      hint: `reset it with: ferry state reset ${sync}`,
    });
  }
  const { value, key } = parsed.data;
  return key === undefined ? { value } : { value, key };
}
