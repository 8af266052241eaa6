import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, FerryError, stacklessError } from '../../../src/sdk/errors.js';

describe('error catalogue', () => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

  it.each(Object.keys(ERROR_CATALOGUE))('documents %s with its exit code', (code) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\``));
    expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
    const exit = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].exitCode;
    expect(row!.split('|')[2]!.trim()).toBe(String(exit));
  });

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/^\| `(FERRY_[A-Z_]+)`/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('describes what, where and what to do', () => {
    const error = new FerryError('FERRY_SOURCE_OBJECT_MISSING', 'table "deals" does not exist', {
      where: 'sync crm-deals (pipelines/crm.yaml:12:7)',
      hint: 'check source.table',
    });
    expect(error.exitCode).toBe(3);
    expect(error.retryable).toBe(false);
    expect(error.describe()).toBe(
      'FERRY_SOURCE_OBJECT_MISSING: table "deals" does not exist\n  at sync crm-deals (pipelines/crm.yaml:12:7)\n  hint: check source.table',
    );
  });
});

describe('errors without a stack trace', () => {
  it('keep the first line of the stack alone and put the limit back', () => {
    const limit = Error.stackTraceLimit;
    const error = new FerryError('FERRY_SERVICE_ERROR', 'createRow: HTTP 429', { stack: false });
    expect(error.stack).toBe('FerryError: createRow: HTTP 429');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(stacklessError('gone').stack).toBe('Error: gone');
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('leave every other error its frames', () => {
    expect(new FerryError('FERRY_INTERNAL', 'bug').stack).toMatch(/^FerryError: bug\n\s+at /);
  });

  it('keep their frames, and are made at all, where the limit is read-only (node --frozen-intrinsics)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-frozen-'));
    try {
      const script = join(dir, 'make.mts');
      const errors = new URL('../../../src/sdk/errors.ts', import.meta.url).href;
      writeFileSync(
        script,
        `import { FerryError, stacklessError } from ${JSON.stringify(errors)};\n` +
          `const error = new FerryError('FERRY_SERVICE_ERROR', 'createRow: HTTP 429', { stack: false });\n` +
          `console.log(JSON.stringify({ first: error.stack.split('\\n')[0], frames: error.stack.includes('\\n    at '), plain: stacklessError('gone').message }));\n`,
      );
      const root = fileURLToPath(new URL('../../..', import.meta.url));
      const out = execFileSync(process.execPath, ['--frozen-intrinsics', '--no-warnings', '--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
      expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ first: 'FerryError: createRow: HTTP 429', frames: true, plain: 'gone' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
