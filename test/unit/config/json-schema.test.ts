import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../../src/cli/schema.js';
import { configJsonSchema } from '../../../src/config/index.js';

type Json = Record<string, unknown>;

function child(schema: unknown, ...keys: string[]): Json {
  let current = schema as Json;
  for (const key of keys) current = current[key] as Json;
  return current;
}

describe('configJsonSchema', () => {
  it('is JSON with $schema, title and the keys of ferry.yaml', () => {
    const schema = JSON.parse(JSON.stringify(configJsonSchema())) as Json;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.title).toContain('ferry.yaml');
    expect(Object.keys(child(schema, 'properties'))).toEqual(
      expect.arrayContaining(['version', 'service', 'state', 'emulator', 'include', 'plugins', 'syncs', 'exports']),
    );
    expect(schema.additionalProperties).toBe(false);
  });

  it('describes syncs items, with defaults optional for users (io: input)', () => {
    const schema = configJsonSchema();
    const sync = child(schema, 'properties', 'syncs', 'items');
    expect(Object.keys(child(sync, 'properties'))).toEqual(
      expect.arrayContaining(['name', 'source', 'incremental', 'group', 'deletes', 'target']),
    );
    expect(sync.required).toEqual(expect.arrayContaining(['name', 'source', 'target']));
    expect(sync.required).not.toContain('deletes');
    expect(child(sync, 'properties', 'deletes')).toMatchObject({ enum: ['ignore', 'mirror'], default: 'ignore' });
    expect(child(sync, 'properties', 'name').description).toMatch(/unique/i);
    const target = child(sync, 'properties', 'target');
    expect(child(target, 'properties', 'type').enum).toEqual(['conversation', 'message', 'row', 'document']);
    expect(child(schema, 'properties', 'service').required ?? []).toEqual([]);
  });

  it('describes map values recursively: expressions, literals and nested mappings', () => {
    const schema = configJsonSchema();
    const definitions = child(schema, 'definitions');
    expect(child(definitions, 'MapSpec')).toMatchObject({ type: 'object', additionalProperties: { $ref: '#/definitions/MapValue' } });
    const forms = child(definitions, 'MapValue').anyOf as Json[];
    expect(forms).toEqual(expect.arrayContaining([{ type: 'string' }, { type: 'boolean' }, { $ref: '#/definitions/MapSpec' }]));
    const map = child(schema, 'properties', 'syncs', 'items', 'properties', 'target', 'properties', 'map');
    expect(JSON.stringify(map)).toContain('#/definitions/MapSpec');
  });

  it('keeps connector options open under source', () => {
    const sync = child(configJsonSchema(), 'properties', 'syncs', 'items');
    const source = child(sync, 'properties', 'source');
    expect(source.required).toEqual(['type']);
    expect(source.additionalProperties).not.toBe(false);
  });
});

describe('ferry schema', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-schema-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  async function runSchema(args: string[]): Promise<string> {
    const program = new Command().exitOverride();
    register(program.command('schema'), () => undefined);
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await program.parseAsync(['schema', ...args], { from: 'user' });
    return out;
  }

  it('prints the schema to stdout', async () => {
    const out = await runSchema([]);
    const printed = JSON.parse(out) as Json;
    // The base schema, with the connectors' options added under source: and destination:.
    expect(child(printed, 'properties', 'version')).toEqual(JSON.parse(JSON.stringify(child(configJsonSchema(), 'properties', 'version'))));
    expect(child(printed, 'properties', 'syncs', 'items', 'properties', 'source').allOf).toBeInstanceOf(Array);
  });

  it('writes it to --out', async () => {
    const file = path.join(dir, 'ferry.schema.json');
    const out = await runSchema(['--out', file]);
    expect(out).toBe('');
    const written = JSON.parse(await readFile(file, 'utf8')) as Json;
    expect(child(written, 'properties', 'syncs').type).toBe('array');
  });
});
