/**
 * Vitest global setup: the end-to-end tests run bin/ferry.js, which runs the
 * compiled dist/, and plugins import `ferry/sdk` from dist/. Build it before
 * the tests when a source is newer than the last build, so every test runs
 * the current sources — but only when a selected test needs dist/ (it spawns
 * the CLI or imports ferry/sdk), so `vitest run test/unit/sink` never waits
 * for a build.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { buildIfStale } from '../scripts/build.js';

const ROOT = resolve(import.meta.dirname, '..');
const NEEDS_DIST = /bin\/ferry|spawn-ferry|ferry\/sdk/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The file filters on vitest's command line (`vitest run test/e2e run.test`). */
function filters(): string[] {
  return process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('-') && !['run', 'watch', 'dev'].includes(arg) && !all[i - 1]?.match(/^--(reporter|outputFile|config|project|pool|shard)$/));
}

export default async function setup(): Promise<void> {
  const wanted = filters();
  const selected = [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'connectors'))].filter(
    (file) => wanted.length === 0 || wanted.some((filter) => file.includes(relative(ROOT, resolve(filter)) || filter)),
  );
  if (selected.some((file) => NEEDS_DIST.test(readFileSync(join(ROOT, file), 'utf8')))) await buildIfStale();
}
