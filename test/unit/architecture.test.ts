/**
 * The direction of imports described in docs/architecture.md: each layer
 * imports only the layers below it (connectors only the SDK; the emulator
 * never the pipeline), and no module imports itself back at runtime.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Which layers each layer may import (besides itself). Keep in step with docs/architecture.md. */
const ALLOWED: Record<string, readonly string[]> = {
  'src/sdk': [],
  'src/api': ['src/sdk'],
  'src/config': ['src/sdk'],
  'src/state': ['src/sdk'],
  'src/mapping': ['src/sdk', 'src/api', 'src/config'],
  'src/sink': ['src/sdk', 'src/api', 'src/config'],
  // Operator metrics: runtime imports stay below the pipeline (it only names its types).
  'src/metrics': ['src/sdk', 'src/api', 'src/config', 'src/state', 'src/sink'],
  // Alerts (notify:): what a finished run or a stalled sync raises, and the webhooks that carry it.
  'src/notify': ['src/sdk', 'src/config', 'src/state'],
  connectors: ['src/sdk'],
  // The mail seed reuses the mbox connector's parser.
  'src/emulator': ['src/sdk', 'src/api', 'src/metrics', 'connectors'],
  // Project-wide infrastructure: logger, project and state opening, the service connection, stop signals.
  'src/runtime': ['src/sdk', 'src/api', 'src/config', 'src/state', 'src/emulator'],
  // A run's lifecycle (the orchestrator every kind of run goes through) and its run-level listeners.
  'src/run': ['src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/metrics', 'src/notify'],
  'src/pipeline': ['src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/mapping', 'src/sink', 'src/emulator', 'src/metrics'],
  'src/export': ['src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/pipeline'],
  'src/worker': ['src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/pipeline', 'src/export', 'src/metrics', 'src/notify'],
  // Project-wide operations over syncs and exports alike (`ferry check`).
  'src/project': ['src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/mapping', 'src/sink', 'src/pipeline', 'src/export'],
  // The web console: a JSON API and pages over the project's state, service and commands' cores.
  'src/console': ['src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/pipeline', 'src/export', 'src/project', 'src/notify'],
  'src/cli': ['src/console', 'src/notify', 'src/run', 'src/runtime', 'src/sdk', 'src/api', 'src/config', 'src/state', 'src/mapping', 'src/sink', 'src/emulator', 'src/pipeline', 'src/export', 'src/worker', 'src/project', 'src/metrics', 'connectors'],
};

interface Import {
  target: string;
  /** `import type` / `export type`: erased at runtime. */
  typeOnly: boolean;
}

const IMPORT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    // Templates are copied into new projects; they import 'ferry/sdk' by package name.
    if (name === 'node_modules' || name === 'connector-templates') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => ({
    target: resolve(dirname(file), (m[3] ?? m[4])!).replace(/\.js$/, '.ts'),
    typeOnly: m[2] !== undefined,
  }));
}

function layerOf(path: string): string {
  const [top, second] = relative(ROOT, path).split('/');
  return top === 'src' ? `src/${second}` : (top ?? '');
}

const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'connectors'))];
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('architecture: the direction of imports', () => {
  it('finds the imports it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(ROOT, 'src/pipeline/run-sync.ts'))?.some((i) => i.target.endsWith('src/state/run-lease.ts'))).toBe(true);
  });

  it('lets each layer import only the layers below it', () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      const allowed = ALLOWED[from];
      if (allowed === undefined) {
        violations.push(`${relative(ROOT, file)}: layer ${from} is not in ALLOWED (add it, and to docs/architecture.md)`);
        continue;
      }
      for (const { target } of imports) {
        const to = layerOf(target);
        if (to !== from && !allowed.includes(to)) violations.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycles at runtime', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      state.set(file, 'visiting');
      path.push(file);
      for (const { target, typeOnly } of graph.get(file) ?? []) {
        if (typeOnly || !graph.has(target)) continue;
        if (state.get(target) === 'visiting') cycles.push(path.slice(path.indexOf(target)).concat(target).map((f) => relative(ROOT, f)).join(' → '));
        else if (state.get(target) === undefined) visit(target, path);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (state.get(file) === undefined) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

/** Every .ts file under `dir`, tests included. */
function allTsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) allTsFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

describe('architecture: tests stand on their own', () => {
  // bench/ measures ferry; what tests and benchmarks share (the stand-in service) lives in test/support.
  it('no file under test/ imports bench/', () => {
    const bench = join(ROOT, 'bench');
    const testFiles = allTsFiles(join(ROOT, 'test'));
    expect(testFiles.length).toBeGreaterThan(100);
    const violations = testFiles.flatMap((file) =>
      importsOf(file)
        .filter(({ target }) => target === bench || target.startsWith(`${bench}/`))
        .map(({ target }) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`),
    );
    expect(violations).toEqual([]);
  });
});
