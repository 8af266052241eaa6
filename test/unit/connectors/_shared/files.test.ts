/**
 * openText (connectors/sources/_shared/files.ts): a file comes in small
 * decoded chunks, because a parser turns each whole chunk into records
 * without giving the event loop a turn, while a run's pushes wait for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openText } from '../../../../connectors/sources/_shared/files.js';

describe('openText', () => {
  it('reads a large file whole, in chunks of at most 16 KiB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-open-text-'));
    try {
      const text = Array.from({ length: 2000 }, (_, i) => `D${i},Won,agent ${i},GTX Pro,${i * 7}\n`).join('');
      writeFileSync(join(dir, 'big.csv'), text);
      const chunks: string[] = [];
      for await (const chunk of openText(join(dir, 'big.csv'), { encoding: 'utf8', compression: 'none' })) chunks.push(String(chunk));
      expect(chunks.join('')).toBe(text);
      expect(text.length).toBeGreaterThan(64 * 1024);
      expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(16 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
