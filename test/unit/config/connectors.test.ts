import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import csv from '../../../connectors/sources/csv/index.js';
import { builtinConnectorNames, loadConnector } from '../../../src/config/connectors.js';
import { isFerryError, type FerryError } from '../../../src/sdk/index.js';
import { rejection, tempDir } from '../connectors/helpers.js';

const SDK_URL = pathToFileURL(join(import.meta.dirname, '../../../src/sdk/index.ts')).href;

/** A plugin module as an author writes it, importing the SDK by absolute URL. */
function pluginSource(name: string, extra = ''): string {
  return `import { z } from 'zod';
import { defineSource } from ${JSON.stringify(SDK_URL)};
const definition = defineSource({
  name: ${JSON.stringify(name)},
  options: z.object({ count: z.number().default(2) }),
  async discover() { return [{ name: 'numbers', fields: [{ name: 'n', type: 'int' }] }]; },
  async *read(ctx) {
    for (let n = 1; n <= ctx.options.count; n++) yield { data: { n }, origin: { url: 'memory://numbers/' + n } };
  },
});
${extra || 'export default definition;'}
`;
}

/**
 * A package under node_modules is imported by Node itself (no TypeScript
 * loader), so this one spells out what defineSource returns instead of
 * importing the SDK's .ts sources.
 */
const PLAIN_PLUGIN = `const options = { parse: (v) => v ?? {}, safeParse: (v) => ({ success: true, data: v ?? {} }) };
export default {
  kind: 'source', sdkVersion: 1, name: 'demo', options,
  async discover() { return [{ name: 'demo', fields: [] }]; },
  async *read() { yield { data: { ok: true }, origin: { url: 'memory://demo' } }; },
};
`;

function write(dir: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

describe('builtinConnectorNames', () => {
  it('lists the connectors/ folders that have an index, not helper folders', () => {
    const names = builtinConnectorNames();
    expect(names).toContain('csv');
    expect(names).toContain('jsonl');
    expect(names).not.toContain('_shared');
    expect(names).toEqual([...names].sort());
  });
});

describe('loadConnector', () => {
  it('loads a built-in by name, once', async () => {
    const first = await loadConnector('csv', { baseDir: tempDir('loader') });
    expect(first).toBe(csv);
    expect(await loadConnector('csv', { baseDir: '/', kind: 'source' })).toBe(first);
    expect((await loadConnector('jsonl', { baseDir: '/' })).name).toBe('jsonl');
  });

  it('loads a local plugin folder (package.json main), a file, and an index folder, relative to baseDir', async () => {
    const dir = tempDir('loader');
    write(dir, {
      'plugins/counter/package.json': JSON.stringify({ name: 'counter', type: 'module', main: 'lib/main.js' }),
      'plugins/counter/lib/main.js': pluginSource('counter'),
      'single.mjs': pluginSource('single', 'export const source = definition;'),
      'bare/index.js': pluginSource('bare'),
      'bare/package.json': JSON.stringify({ type: 'module' }),
    });
    const counter = await loadConnector('./plugins/counter', { baseDir: dir });
    expect(counter.kind).toBe('source');
    expect(counter.name).toBe('counter');
    const records: unknown[] = [];
    if (counter.kind === 'source') {
      const options = counter.options.parse({ count: 3 });
      const ctx = { options, baseDir: dir, syncName: 's', logger: { debug() {}, info() {}, warn() {}, error() {} }, signal: new AbortController().signal };
      for await (const record of counter.read(ctx)) records.push(record.data);
    }
    expect(records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect((await loadConnector('./single.mjs', { baseDir: dir })).name).toBe('single');
    expect((await loadConnector(join(dir, 'bare'), { baseDir: '/' })).name).toBe('bare');
  });

  it('finds an npm package from baseDir, by package name or by the connector name of a listed plugin', async () => {
    const dir = tempDir('loader');
    write(dir, {
      'node_modules/ferry-connector-demo/package.json': JSON.stringify({
        name: 'ferry-connector-demo',
        type: 'module',
        exports: { '.': { import: './dist/index.js' } },
      }),
      'node_modules/ferry-connector-demo/dist/index.js': PLAIN_PLUGIN,
    });
    expect((await loadConnector('ferry-connector-demo', { baseDir: dir })).name).toBe('demo');
    expect((await loadConnector('demo', { baseDir: dir, plugins: ['ferry-connector-demo'] })).name).toBe('demo');
    const error = await rejection(loadConnector('demo', { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_CONNECTOR_NOT_FOUND')).toBe(true);
  });

  it('refuses a plugin built for another SDK major version, saying which', async () => {
    const dir = tempDir('loader');
    write(dir, {
      'old.mjs': pluginSource('old', 'export default { ...definition, sdkVersion: 2 };'),
      'empty.mjs': 'export default { hello: "world" };\n',
      'broken.mjs': 'export default (;\n',
    });
    const error = (await rejection(loadConnector('./old.mjs', { baseDir: dir }))) as FerryError;
    expect(isFerryError(error, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
    expect(error.message).toMatch(/SDK version 2.*supports SDK version 1/);
    expect(error.details).toMatchObject({ found: 2, supported: 1 });
    const empty = await rejection(loadConnector('./empty.mjs', { baseDir: dir }));
    expect(isFerryError(empty, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
    expect((empty as Error).message).toContain('exports no connector');
    const broken = await rejection(loadConnector('./broken.mjs', { baseDir: dir }));
    expect(isFerryError(broken, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
  });

  it('reports an unknown type with the built-ins and where else it looked', async () => {
    const error = (await rejection(loadConnector('postgress', { baseDir: tempDir('loader') }))) as FerryError;
    expect(isFerryError(error, 'FERRY_CONNECTOR_NOT_FOUND')).toBe(true);
    expect(error.message).toContain('postgress');
    const far = (await rejection(loadConnector('zzzz', { baseDir: tempDir('loader') }))) as FerryError;
    expect(far.message).toMatch(/built-ins: .*csv.*jsonl/);
    const near = (await rejection(loadConnector('jsnl', { baseDir: tempDir('loader') }))) as FerryError;
    expect(near.message).toContain('did you mean "jsonl"?');
    expect(error.hint).toContain('csv, ');
    expect(error.hint).toContain('jsonl');
    expect(error.hint).toContain('./');
    expect(error.hint).toContain('npm package');
    const missingPath = await rejection(loadConnector('./nowhere', { baseDir: tempDir('loader') }));
    expect(isFerryError(missingPath, 'FERRY_CONNECTOR_NOT_FOUND')).toBe(true);
  });

  it('refuses a source where a destination is needed', async () => {
    const error = await rejection(loadConnector('csv', { baseDir: '/', kind: 'destination' }));
    expect(isFerryError(error, 'FERRY_CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain('cannot be used as a destination');
  });
});
