/**
 * Plugins as users install them: a package in a folder outside the ferry
 * repository that imports `ferry/sdk` and `zod` through its own node_modules
 * (links to this ferry, as `npm link ferry` makes), referenced from ferry.yaml
 * by path, by `plugins:` path plus connector name, and by package name.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConnector } from '../../../src/config/connectors.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { isFerryError } from '../../../src/sdk/index.js';

const FERRY_ROOT = resolve(import.meta.dirname, '../../..');

const COUNTER = `import { z } from 'zod';
import { defineSource } from 'ferry/sdk';

export default defineSource({
  name: 'counter',
  options: z.strictObject({ count: z.number().int().min(1), prefix: z.string().default('item') }),
  async discover() {
    return [{ name: 'counter', primaryKey: ['id'], fields: [{ name: 'id', type: 'string' }, { name: 'n', type: 'int' }] }];
  },
  async *read(ctx) {
    for (let n = 1; n <= ctx.options.count; n++) {
      ctx.signal.throwIfAborted();
      yield { data: { id: ctx.options.prefix + '-' + n, n }, origin: { stream: 'counter', table: 'counter', key: String(n) } };
    }
  },
});
`;

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** A plugin package: package.json, index.ts, and node_modules links to this ferry and its zod. */
function plugin(dir: string, manifest: Record<string, unknown>, code: string): string {
  write(join(dir, 'package.json'), JSON.stringify({ type: 'module', main: 'index.ts', ...manifest }, null, 2));
  write(join(dir, 'index.ts'), code);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(FERRY_ROOT, join(dir, 'node_modules', 'ferry'), 'junction');
  symlinkSync(join(FERRY_ROOT, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'junction');
  return dir;
}

const sync = (name: string, type: string, prefix: string) => `  - name: ${name}
    source:
      type: ${type}
      count: 7
      prefix: ${prefix}
    target:
      type: row
      source: { name: plugins }
      objectType: { name: ${name} }
      map:
        id: id
        name: '"Item " & $string(n)'
        public: true
        fields: { n: n }
`;

describe('plugins outside the repository', () => {
  let root = '';
  let project = '';

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ferry-plugins-'));
    plugin(join(root, 'plugins', 'ferry-connector-counter'), { name: 'ferry-connector-counter', version: '1.0.0', peerDependencies: { ferry: '^0.1' } }, COUNTER);
    project = join(root, 'project');
    // Installed as a package: what `npm install ../plugins/ferry-connector-counter` leaves behind.
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(join(root, 'plugins', 'ferry-connector-counter'), join(project, 'node_modules', 'ferry-connector-counter'), 'junction');
  });

  it('runs full syncs with the plugin named by path, by plugins: path + name, and by package name', async () => {
    write(
      join(project, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded }
emulator: { db: ':memory:' }
state: { url: 'sqlite::memory:' }
plugins: [../plugins/ferry-connector-counter]
syncs:
${sync('by_path', '../plugins/ferry-connector-counter', 'p')}${sync('by_plugin_name', 'counter', 'n')}${sync('by_package', 'ferry-connector-counter', 'k')}`,
    );
    const summaries = await runProject({ configFile: join(project, 'ferry.yaml'), syncNames: [], verify: true, logger: pino({ level: 'silent' }) });
    expect(summaries.map((s) => [s.sync, s.status, s.counts.created, s.visible])).toEqual([
      ['by_path', 'succeeded', 7, 7],
      ['by_plugin_name', 'succeeded', 7, 7],
      ['by_package', 'succeeded', 7, 7],
    ]);
  });

  it('refuses a plugin whose peerDependencies.ferry excludes this ferry, naming both versions', async () => {
    const dir = plugin(join(root, 'plugins', 'too-new'), { name: 'ferry-connector-too-new', peerDependencies: { ferry: '^2.0.0' } }, COUNTER);
    const error = await loadConnector(dir, { baseDir: root }).catch((e: unknown) => e);
    expect(isFerryError(error, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
    expect((error as Error).message).toBe('connector "' + dir + '" (ferry-connector-too-new) needs ferry ^2.0.0; this is ferry 0.1.0');
  });

  it.each([
    ['0.2.0 - 0.3.0', false],
    ['0.0.1 - 0.1.0', true],
    ['>=0.1.0-beta.1 <0.1.0', false],
    ['^0.1.0-beta.1', true],
    ['latest', true],
  ] as const)('reads peerDependencies.ferry %s with semver (this ferry is 0.1.0): loads %s', async (range, loads) => {
    const dir = plugin(join(root, 'plugins', `range-${range.replace(/[^0-9a-z]+/gi, '_')}`), { name: 'ferry-connector-range', peerDependencies: { ferry: range } }, COUNTER);
    const error = await loadConnector(dir, { baseDir: root }).then(() => undefined, (e: unknown) => e);
    expect(error === undefined).toBe(loads);
    if (!loads) expect(isFerryError(error, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
  });

  it('refuses a definition made for another SDK version, naming found and supported', async () => {
    const dir = plugin(
      join(root, 'plugins', 'old-sdk'),
      { name: 'ferry-connector-old-sdk' },
      `export default { kind: 'source', sdkVersion: 7, name: 'old', options: { safeParse() {} }, discover() {}, read() {} };\n`,
    );
    const error = await loadConnector(dir, { baseDir: root }).catch((e: unknown) => e);
    expect(isFerryError(error, 'FERRY_PLUGIN_INCOMPATIBLE')).toBe(true);
    expect((error as Error).message).toMatch(/built for ferry SDK version 7, this ferry supports SDK version 1/);
  });

  it('reports a plugin listed under plugins: that is not there as not found', async () => {
    const error = await loadConnector('counter', { baseDir: project, plugins: ['./nowhere'] }).catch((e: unknown) => e);
    expect(isFerryError(error, 'FERRY_CONNECTOR_NOT_FOUND')).toBe(true);
  });
});
