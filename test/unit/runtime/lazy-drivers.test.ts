/**
 * A run on SQLite state with a CSV source loads no database driver: the
 * drivers (pg, mysql2, DuckDB) are imported by the connectors and state
 * backends that use them, when they are used. Checked in a fresh process,
 * whose CommonJS module cache lists every driver file loaded, ESM importers
 * included.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/** The driver packages a fresh process has loaded after `script`. */
function driversLoadedBy(script: string): string[] {
  const probe = `
    ${script}
    const { createRequire } = await import('node:module');
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const drivers = ['pg', 'mysql2', '@duckdb/node-api', 'pg-boss'].filter((name) => cache.some((file) => file.includes('/node_modules/' + name + '/')));
    console.log(JSON.stringify(drivers));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('database drivers load lazily', () => {
  it('a CSV sync on SQLite state loads none of them', () => {
    const loaded = driversLoadedBy(`
      await import('./src/pipeline/run-project.ts');
      const { loadConnector } = await import('./src/config/connectors.ts');
      await loadConnector('csv', { baseDir: process.cwd(), kind: 'source' });
      const { openStateStore } = await import('./src/state/index.ts');
      await (await openStateStore('sqlite::memory:')).close();`);
    expect(loaded).toEqual([]);
  });

  it('the postgres source loads pg (the probe sees a driver when one is loaded)', () => {
    const loaded = driversLoadedBy(`
      const { loadConnector } = await import('./src/config/connectors.ts');
      await loadConnector('postgres', { baseDir: process.cwd(), kind: 'source' });`);
    expect(loaded).toContain('pg');
  });
});
