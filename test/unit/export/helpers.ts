/** A connector context for driving destinations directly in tests. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { ConnectorContext, DestinationDefinition, DestinationWriter } from '../../../src/sdk/index.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ferry-export-'));
}

export interface CapturedLogger {
  warnings: unknown[];
}

export function contextFor<S extends z.ZodType>(
  definition: DestinationDefinition<S>,
  raw: unknown,
  baseDir: string,
): ConnectorContext<z.output<S>> & CapturedLogger {
  const warnings: unknown[] = [];
  const noop = () => undefined;
  return {
    options: definition.options.parse(raw),
    baseDir,
    syncName: 'test-export',
    logger: { debug: noop, info: noop, error: noop, warn: (obj: unknown) => warnings.push(obj) },
    signal: new AbortController().signal,
    warnings,
  };
}

export async function openWriter<S extends z.ZodType>(definition: DestinationDefinition<S>, raw: unknown, baseDir: string): Promise<DestinationWriter> {
  return definition.open(contextFor(definition, raw, baseDir));
}

/** A conversation detail as the service returns it, with `lines` transcript entries alternating Ann and Bob. */
export function conversationRecord(id: string, lines: number): Record<string, unknown> {
  return {
    conversationId: id,
    title: `Call ${id}`,
    startTime: '2024-03-01T09:00:00.000Z',
    participants: [
      { name: 'Ann', email: 'ann@example.com', attended: true },
      { name: 'Bob', email: null, attended: false },
    ],
    transcript: Array.from({ length: lines }, (_, i) => ({ speaker: i % 2 ? 'Bob' : 'Ann', text: `line ${i}`, startTime: i * 10, endTime: i * 10 + 8 })),
  };
}
