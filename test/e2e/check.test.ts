/**
 * `ferry check` catches what `ferry run` would refuse, through the CLI: an
 * unknown JSONata function, an object type over the service's 50 fields, a
 * declared field type that conflicts with the existing object type, and a
 * state store that cannot be opened; `ferry check <name…>` checks a subset.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

interface CheckOutput {
  exitCode: number;
  items: { kind: string; name: string; ok: boolean; message: string; code?: string; issues?: { message: string }[] }[];
}

let dir: string;
let pipeline: string;

/** The scaffold's example sync with its target section replaced by `target`. */
function withTarget(target: string): void {
  const original = readFileSync(join(dir, 'pipelines/example.yaml.orig'), 'utf8');
  const at = original.indexOf('    target:');
  writeFileSync(pipeline, `${original.slice(0, at)}${target}`);
}

async function check(...args: string[]): Promise<CheckOutput> {
  const result = await ferry(['check', '--json', ...args], { cwd: dir });
  const output = jsonOf(result) as CheckOutput;
  expect(result.code).toBe(output.exitCode);
  return output;
}

beforeAll(async () => {
  dir = tempProjectDir('ferry-check-');
  expect((await ferry(['init'], { cwd: dir })).code).toBe(0);
  pipeline = join(dir, 'pipelines/example.yaml');
  writeFileSync(`${pipeline}.orig`, readFileSync(pipeline));
});

describe('ferry check', () => {
  it('refuses a mapping that calls an unknown JSONata function (exit 1)', async () => {
    withTarget(`    target:
      type: row
      source: { name: ferry-example }
      objectType: { name: deal }
      map:
        id: opportunity_id
        name: $titlecase(product)
        public: true
        fields: { agent: sales_agent }
`);
    const output = await check();
    expect(output.exitCode).toBe(1);
    const sync = output.items.find((i) => i.kind === 'sync');
    expect(sync?.ok).toBe(false);
    expect(JSON.stringify(sync?.issues)).toMatch(/unknown function \$titlecase\(\)/);
  });

  it('refuses an object type over 50 fields (exit 1, a configuration error)', async () => {
    const fields = Array.from({ length: 51 }, (_, n) => `f${n}: sales_agent`).join(', ');
    withTarget(`    target:
      type: row
      source: { name: ferry-example }
      objectType: { name: wide }
      map:
        id: opportunity_id
        name: product
        public: true
        fields: { ${fields} }
`);
    const output = await check();
    expect(output.exitCode).toBe(1);
    expect(output.items.find((i) => i.kind === 'target')).toMatchObject({ ok: false, code: 'FERRY_CONFIG_INVALID', message: expect.stringMatching(/would have 51 fields/) });
  });

  it('refuses a declared field type that conflicts with the existing object type (exit 1)', async () => {
    writeFileSync(pipeline, readFileSync(`${pipeline}.orig`));
    const run = await ferry(['run'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const original = readFileSync(`${pipeline}.orig`, 'utf8');
    expect(original).toContain('amount: { type: int');
    writeFileSync(pipeline, original.replace('amount: { type: int', 'amount: { type: string'));
    const output = await check();
    expect(output.exitCode, JSON.stringify(output.items)).toBe(1);
    expect(output.items.find((i) => i.kind === 'target')).toMatchObject({ ok: false, message: expect.stringMatching(/"amount" is int in the service but declared as string/) });
  });

  it('checks the state store (exit 3 when it cannot be opened)', async () => {
    writeFileSync(pipeline, readFileSync(`${pipeline}.orig`));
    const config = join(dir, 'ferry.yaml');
    const original = readFileSync(config, 'utf8');
    writeFileSync(config, original.replace('sqlite:state/ferry.db', 'sqlite:data/sample.csv/ferry.db'));
    try {
      const output = await check();
      expect(output.exitCode).toBe(3);
      expect(output.items.find((i) => i.kind === 'state')).toMatchObject({ ok: false, code: 'FERRY_STATE_ERROR' });
    } finally {
      writeFileSync(config, original);
    }
  });

  it('checks only the syncs named, and refuses a name it does not know', async () => {
    writeFileSync(pipeline, readFileSync(`${pipeline}.orig`));
    const output = await check('example');
    expect(output.exitCode).toBe(0);
    expect(output.items.filter((i) => i.kind === 'sync').map((i) => i.name)).toEqual(['example']);
    const unknown = await ferry(['check', 'nope'], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no sync or export named \\?"nope\\?"/);
  });
});
