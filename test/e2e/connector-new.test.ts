/**
 * `ferry connector new` as a newcomer uses it: scaffold a source package in a
 * folder outside the repository, run the package's own tests (the SDK's
 * conformance suite among them) with its linked vitest, then run a ferry.yaml
 * that names the package by path against the embedded emulator.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectorNames, connectorScaffold } from '../../src/cli/connector-templates.js';
import { ferry, jsonOf, tempProjectDir, type CliResult } from './spawn-ferry.js';

function node(args: readonly string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('ferry connector new', () => {
  it('scaffolds a source package whose own tests pass and which a sync can use by path', async () => {
    const root = tempProjectDir('ferry-connector-new-');
    const created = await ferry(['connector', 'new', 'demo-source', '--dir', join(root, 'demo-source')], { cwd: root });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created the source connector "demo-source"/);
    const pkg = join(root, 'demo-source');
    for (const file of ['package.json', 'src/index.ts', 'test/demo-source.test.ts', 'README.md', '.gitignore', 'vitest.config.ts', 'node_modules/ferry/package.json']) {
      expect(existsSync(join(pkg, file)), file).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; main: string };
    expect(manifest).toMatchObject({ main: 'src/index.ts', peerDependencies: { ferry: '^0.1.0' } });

    // The package's own test run, as `npm test` would start it.
    const tests = await node([join(pkg, 'node_modules/.bin/vitest'), 'run', '--reporter=verbose'], pkg);
    expect(tests.code, `${tests.stdout}\n${tests.stderr}`).toBe(0);
    expect(tests.stdout).toMatch(/Tests\s+14 passed/);
    expect(tests.stdout).toMatch(/resumes an interrupted read/);

    // A second scaffold into the same folder is refused rather than overwriting the author's work.
    const again = await ferry(['connector', 'new', 'demo-source', '--dir', pkg], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists and is not empty/);

    writeFileSync(
      join(root, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded }
emulator: { db: ':memory:' }
state: { url: sqlite:state/ferry.db }
syncs:
  - name: tickets
    source:
      type: ${pkg}
      path: demo-source/test/fixtures/tickets.jsonl
    incremental: { cursor: updated_at }
    target:
      type: row
      source: { name: tickets }
      objectType: { name: ticket }
      map:
        id: $string(id)
        name: subject
        public: true
        fields: { status: status, priority: priority }
`,
    );
    const run = await ferry(['run', '--json'], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonOf(run) as { syncs: { status: string; counts: { created: number }; cursor: { value: string } }[] };
    expect(summary.syncs[0]).toMatchObject({ status: 'succeeded', counts: { created: 6 }, cursor: { value: '2024-03-04T11:00:00Z' } });
  });

  it('scaffolds a destination package whose tests pass', async () => {
    const root = tempProjectDir('ferry-connector-new-');
    const created = await ferry(['connector', 'new', '@acme/ferry-connector-jsonl-out', '--kind', 'destination'], { cwd: root });
    expect(created.code, created.stderr).toBe(0);
    const pkg = join(root, 'ferry-connector-jsonl-out');
    expect(readFileSync(join(pkg, 'src/index.ts'), 'utf8')).toMatch(/name: 'jsonl-out'/);
    const tests = await node([join(pkg, 'node_modules/.bin/vitest'), 'run'], pkg);
    expect(tests.code, `${tests.stdout}\n${tests.stderr}`).toBe(0);
  });

  it('is what docs/connector-authors.md shows, file for file', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/connector-authors.md'), 'utf8');
    const files = connectorScaffold(connectorNames('ferry-connector-tickets'), 'source', { ferryVersion: '0.1.0', linked: true });
    for (const path of ['package.json', 'src/index.ts', 'test/tickets.test.ts', 'vitest.config.ts', 'test/fixtures/tickets.jsonl']) {
      const file = files.find((f) => f.path === path);
      expect(doc.includes(`\`${path}\`:\n\n\`\`\`${path.endsWith('.ts') ? 'ts' : 'json'}\n${file?.content.trimEnd()}\n\`\`\``), `${path} differs from the guide`).toBe(true);
    }
  });

  it('refuses an invalid package name with a usage error', async () => {
    const root = tempProjectDir('ferry-connector-new-');
    const result = await ferry(['connector', 'new', 'Bad Name'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not a valid npm package name/);
  });
});
